// The "fastify route doing one INSERT" peer: POST /v1/contacts inserts the contact into a table of
// its own through a `postgres` client (pool of 10, like the engine's) and answers 201 with it.
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

const app = Fastify({ logger: false })
app.post("/v1/contacts", async (request, reply) => {
  const body = request.body
  const id = `con_${randomBytes(13).toString("hex")}`
  const [row] = await sql`INSERT INTO contacts (id, email, data) VALUES (${id}, ${body.email}, ${sql.json(body)})
    RETURNING id, email, data, created_at`
  reply.code(201).header("location", `/v1/contacts/${id}`)
  return { id: row.id, ...row.data, created_at: row.created_at }
})
const address = await app.listen({ port: 0, host: "127.0.0.1" })
process.stderr.write(`fastify listening on ${address}\n`)
process.on("SIGTERM", () => app.close().then(() => sql.end()).then(() => process.exit(0)))
