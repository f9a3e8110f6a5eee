// The fastify peers, one fastify app on a database of its own through a `postgres` client (pool of
// 10, like the engine's):
// - "fastify + 1 INSERT": POST /v1/contacts inserts the contact into `contacts` and answers 201 with it;
// - "fastify + 1 SELECT": GET /v1/contacts/:id reads the contact's document row by primary key from
//   `contact_documents` and answers it as JSON (the host's body; the same media type, with fastify's
//   `; charset=utf-8`). The harness stores there the contact the dealstream
//   host answered, so the bytes are the same; the column is `json`, not `jsonb`, because json keeps
//   the document's key order (jsonb would reorder the keys, and the bytes would differ).
// argv[2]: the database URL.
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
const address = await app.listen({ port: 0, host: "127.0.0.1" })
process.stderr.write(`fastify listening on ${address}\n`)
process.on("SIGTERM", () => app.close().then(() => sql.end()).then(() => process.exit(0)))
