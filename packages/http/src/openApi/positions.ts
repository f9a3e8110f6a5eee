/**
 * The position headers of authenticated operations (auth/readYourWrites.ts), added by rule rather
 * than on each endpoint: every write's 2xx answers `Dealstream-Position`, every read takes
 * `Dealstream-Read-After`.
 */

const TOKEN = { type: "string", pattern: "^[0-9A-Fa-f]{16}$" }

const position = {
  "Dealstream-Position": {
    description:
      "The point in the database's history that holds this write: send it as `Dealstream-Read-After` for a read, through any host, that must see the write.",
    required: true,
    schema: TOKEN
  }
}

const readAfter = {
  name: "Dealstream-Read-After",
  in: "header",
  required: false,
  description:
    "A `Dealstream-Position` a write answered with: the read sees at least that write, whichever host or replica serves it. Without it, a host's reads see the writes the same API key made through it. Anything but 16 hexadecimal digits is 400 `validation_error`.",
  schema: TOKEN
}

export const positionHeaders = (method: string) =>
  method === "get"
    ? { parameter: readAfter, header: undefined }
    : ["post", "put", "patch", "delete"].includes(method)
      ? { parameter: undefined, header: position }
      : null
