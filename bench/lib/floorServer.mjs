// The framework floor: the least an Effect 4 HttpApi server does to answer GET one contact, built the
// way packages/http builds the host (HttpApiBuilder.layer, HttpRouter.serve with the logger off,
// NodeHttpServer) but with nothing of ours: one endpoint, no auth, no middleware, no engine. The
// handler finds the contact by the path's id and renders it as JSON, as the host's `respond` does
// (HttpServerResponse.jsonUnsafe), so the bytes are the ones the host answered. What dealstream
// costs above this server is ours; what this costs above bare node:http is the framework's.
// argv[2]: the bare server's routes file; its `GET /v1/contacts/<id>` routes are the contacts served.
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { readFileSync } from "node:fs"
import { createServer } from "node:http"

const contacts = new Map(
  Object.entries(JSON.parse(readFileSync(process.argv[2], "utf8"))).flatMap(([key, route]) => {
    const id = key.match(/^GET \/v1\/contacts\/([^/?]+)$/)?.[1]
    return id === undefined ? [] : [[decodeURIComponent(id), JSON.parse(Buffer.from(route.body, "base64").toString("utf8"))]]
  })
)

const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("contacts").add(HttpApiEndpoint.get("get", "/v1/contacts/:id", { params: { id: Schema.String } }))
)

const ContactsLive = HttpApiBuilder.group(Api, "contacts", (handlers) =>
  handlers.handle("get", ({ params }) => {
    const contact = contacts.get(params.id)
    return Effect.succeed(contact === undefined ? HttpServerResponse.empty({ status: 404 }) : HttpServerResponse.jsonUnsafe(contact))
  })
)

// The harness waits for this line on stderr (HttpRouter's own listen log goes through Effect's logger).
const announce = Layer.effectDiscard(
  HttpServer.addressFormattedWith((address) => Effect.sync(() => process.stderr.write(`Effect HttpApi floor listening on ${address}\n`)))
)

const served = HttpRouter.serve(HttpApiBuilder.layer(Api).pipe(Layer.provide(ContactsLive)), {
  disableLogger: true,
  disableListenLog: true
})

// NodeRuntime.runMain interrupts on SIGTERM: the server closes and the process exits.
announce.pipe(
  Layer.provideMerge(served),
  Layer.provide(NodeHttpServer.layer(() => createServer(), { port: 0, host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain
)
