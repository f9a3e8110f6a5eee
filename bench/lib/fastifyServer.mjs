// The fastify peers, one fastify app on a database of its own through a `postgres` client (pool of
// 10, like the engine's):
// - "fastify + 1 INSERT": POST /v1/contacts inserts the contact into `contacts` and answers 201 with it;
// - "fastify + 1 SELECT": GET /v1/contacts/:id reads the contact's document row by primary key from
//   `contact_documents` and answers it as JSON (the host's body; the same media type, with fastify's
//   `; charset=utf-8`). The harness stores there the contact the dealstream
//   host answered, so the bytes are the same; the column is `json`, not `jsonb`, because json keeps
//   the document's key order (jsonb would reorder the keys, and the bytes would differ).
// - "fastify + keyset SELECT": GET /v1/contacts?filter={"source":{"$in":[…]}}&sort=-created_at&limit=n,
//   the list page, as an app would serve it from a table with the columns it filters and sorts on
//   (`contact_list`: id, source, created_at, and the contact as `json`, index on (source, created_at,
//   id)): one keyset `SELECT … WHERE source = ANY($1) ORDER BY created_at DESC, id DESC LIMIT n + 1`,
//   the page's JSON text joined from the rows' text, and its next_cursor made as the host makes it
//   (core's encodeCursor over the last row's created_at and id; the query fingerprint, which
//   depends on how the host parses a filter, is the one in the host's own first cursor, stored by
//   the harness in `list_cursor`). The harness fills the table with the contacts the host lists.
// argv[2]: the database URL.
import { encodeCursor } from "@dealstream/core"
import Fastify from "fastify"
import { randomBytes } from "node:crypto"
import postgres from "postgres"

const sql = postgres(process.argv[2], { max: 10, onnotice: () => {} })
await sql`CREATE TABLE IF NOT EXISTS contacts (
  id text PRIMARY KEY,
  email text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
)`
await sql`CREATE TABLE IF NOT EXISTS contact_documents (
  id text PRIMARY KEY,
  data json NOT NULL
)`

await sql`CREATE TABLE IF NOT EXISTS contact_list (
  id text COLLATE "C" PRIMARY KEY,
  source text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  data json NOT NULL
)`
await sql`CREATE INDEX IF NOT EXISTS contact_list_source ON contact_list (source, created_at, id)`
await sql`CREATE TABLE IF NOT EXISTS list_cursor (fingerprint text NOT NULL)`

let fingerprint
const app = Fastify({ logger: false })
app.post("/v1/contacts", async (request, reply) => {
  const body = request.body
  const id = `con_${randomBytes(13).toString("hex")}`
  const [row] = await sql`INSERT INTO contacts (id, email, data) VALUES (${id}, ${body.email}, ${sql.json(body)})
    RETURNING id, email, data, created_at`
  reply.code(201).header("location", `/v1/contacts/${id}`)
  return { id: row.id, ...row.data, created_at: row.created_at }
})
app.get("/v1/contacts/:id", async (request, reply) => {
  const [row] = await sql`SELECT data FROM contact_documents WHERE id = ${request.params.id}`
  if (row === undefined) return reply.code(404).send()
  // fastify serializes it with JSON.stringify, as the host does, and says `application/json; charset=utf-8`.
  return row.data
})
app.get("/v1/contacts", async (request, reply) => {
  const sources = JSON.parse(request.query.filter).source.$in
  const limit = Number(request.query.limit)
  if (request.query.sort !== "-created_at" || !(limit >= 1 && limit <= 100)) return reply.code(400).send()
  fingerprint ??= (await sql`SELECT fingerprint FROM list_cursor`)[0]?.fingerprint
  const rows = await sql`SELECT id, created_at, data::text AS data FROM contact_list WHERE source = ANY(${sources})
    ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`
  const page = rows.slice(0, limit)
  const last = page.at(-1)
  const cursor = rows.length > limit ? encodeCursor(fingerprint, { value: last.created_at, id: last.id }) : null
  reply.type("application/json; charset=utf-8")
  return `{"data":[${page.map((row) => row.data).join(",")}],"next_cursor":${JSON.stringify(cursor)}}`
})
const address = await app.listen({ port: 0, host: "127.0.0.1" })
process.stderr.write(`fastify listening on ${address}\n`)
process.on("SIGTERM", () =>
  app
    .close()
    .then(() => sql.end())
    .then(() => process.exit(0))
)
