// The soak's clients: `connections` loops, each with one keep-alive connection of its own and one
// request in flight at a time, drawing from a fixed mix of the API's reads and writes. Each loop
// writes only records it made itself, so no answer depends on another loop's timing: every answer
// but the refusals a loop asks for on purpose (a GET of a record it deleted: 404; a second contact
// with an email it already used: 409) must be 2xx.
import { Agent, request } from "node:http"

/** Weights of the operations; their names appear in the report. */
export const MIX = [
  ["create contact", 12],
  ["create deal", 8],
  ["get contact", 12],
  ["get deal", 8],
  ["update contact", 8],
  ["update deal", 5],
  ["move deal", 10],
  ["list contacts", 8],
  ["list deals", 6],
  ["search contacts", 8],
  ["delete", 4],
  ["restore", 3],
  ["get deleted (404)", 2],
  ["duplicate email (409)", 2],
  ["timeline", 4]
]
const TOTAL = MIX.reduce((sum, [, weight]) => sum + weight, 0)

/** One HTTP exchange on the loop's own agent; resolves with the status and the parsed body. */
const exchange = (agent, base, key, method, path, body) =>
  new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const started = performance.now()
    const req = request(
      `${base}${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) })
        }
      },
      (res) => {
        const chunks = []
        res.on("data", (chunk) => chunks.push(chunk))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let parsed = null
          try {
            parsed = text === "" ? null : JSON.parse(text)
          } catch {
            parsed = null
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, millis: performance.now() - started })
        })
        res.on("error", (error) => resolve({ status: 0, body: { error: String(error) }, millis: performance.now() - started }))
      }
    )
    req.on("error", (error) => resolve({ status: 0, body: { error: String(error) }, millis: performance.now() - started }))
    req.end(payload)
  })

const pickFrom = (items, random) => (items.length === 0 ? undefined : items[Math.floor(random() * items.length)])

/** A small seeded generator per loop, so two runs draw the same mix. */
const seeded = (seed) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/**
 * Runs the loops until `stop()` returns true; `record(op, answer, expectedStatus)` is called for
 * every exchange (expectedStatus null: any 2xx). Resolves when every loop has finished.
 */
export const runTraffic = async ({ base, key, connections, pipeline, stop, record }) => {
  const stages = pipeline.stages.map((stage) => stage.id)
  const loop = async (index) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const random = seeded(index + 1)
    const own = { contacts: [], deals: [], deleted: [] }
    const emailOf = new Map()
    let n = 0
    const call = async (op, method, path, body, expected = null) => {
      const answer = await exchange(agent, base, key, method, path, body)
      record(op, answer, expected)
      return answer
    }
    const mine = (kind) => pickFrom(own[kind], random)
    while (!stop()) {
      n++
      let roll = random() * TOTAL
      let op = MIX[0][0]
      for (const [name, weight] of MIX) {
        if (roll < weight) {
          op = name
          break
        }
        roll -= weight
      }
      // Reads and writes of own records need one first.
      if (own.contacts.length === 0) op = "create contact"
      else if (own.deals.length === 0 && /deal|timeline/.test(op)) op = "create deal"
      switch (op) {
        case "create contact": {
          const email = `soak${index}-${n}@soak.example`
          const answer = await call(op, "POST", "/v1/contacts", {
            email,
            first_name: `Soak${index}`,
            last_name: `Loop${n}`,
            source: n % 3 === 0 ? "webinar" : "ads"
          })
          if (answer.status === 201) {
            own.contacts.push(answer.body.id)
            emailOf.set(answer.body.id, email)
          }
          break
        }
        case "create deal": {
          const answer = await call(op, "POST", "/v1/deals", {
            name: `Soak deal ${index}-${n}`,
            pipeline_id: pipeline.id,
            value: Math.floor(random() * 100_000),
            currency: "EUR",
            contact_ids: [mine("contacts")]
          })
          if (answer.status === 201) own.deals.push(answer.body.id)
          break
        }
        case "get contact":
          await call(op, "GET", `/v1/contacts/${mine("contacts")}${random() < 0.3 ? "?expand=deals" : ""}`)
          break
        case "get deal":
          await call(op, "GET", `/v1/deals/${mine("deals")}`)
          break
        case "update contact":
          await call(op, "PATCH", `/v1/contacts/${mine("contacts")}`, { title: `Title ${n}` })
          break
        case "update deal":
          await call(op, "PATCH", `/v1/deals/${mine("deals")}`, {
            value: Math.floor(random() * 100_000),
            status: random() < 0.5 ? "open" : "won"
          })
          break
        case "move deal":
          await call(op, "PUT", `/v1/deals/${mine("deals")}/stage`, { stage_id: pickFrom(stages, random), reason: `step ${n}` })
          break
        case "timeline":
          await call(op, "GET", `/v1/deals/${mine("deals")}/timeline`)
          break
        case "list contacts": {
          const filter = encodeURIComponent(JSON.stringify({ source: random() < 0.5 ? "webinar" : "ads" }))
          const sort = pickFrom(["-created_at", "email", "-updated_at", "last_name"], random)
          await call(op, "GET", `/v1/contacts?limit=25&sort=${sort}&filter=${filter}`)
          break
        }
        case "list deals": {
          const stage = pickFrom(stages, random)
          await call(op, "GET", `/v1/deals?limit=25&stage_id=${stage}&sort=-value&value_min=${Math.floor(random() * 50_000)}`)
          break
        }
        case "search contacts":
          await call(op, "GET", `/v1/contacts?limit=10&search=${encodeURIComponent(`soak${index} loop${Math.floor(random() * n)}`)}`)
          break
        case "delete": {
          // Keep one of each so that the loop always has something to read.
          const kind = random() < 0.5 && own.contacts.length > 1 ? "contacts" : own.deals.length > 1 ? "deals" : null
          if (kind === null) break
          const id = own[kind].splice(Math.floor(random() * own[kind].length), 1)[0]
          const answer = await call(op, "DELETE", `/v1/${kind}/${id}`)
          if (answer.status === 204) own.deleted.push({ kind, id })
          break
        }
        case "restore": {
          const entry = own.deleted.shift()
          if (entry === undefined) break
          const answer = await call(op, "POST", `/v1/${entry.kind}/${entry.id}/restore`)
          if (answer.status === 200) own[entry.kind].push(entry.id)
          break
        }
        case "get deleted (404)": {
          const entry = pickFrom(own.deleted, random)
          if (entry !== undefined) await call(op, "GET", `/v1/${entry.kind}/${entry.id}`, undefined, 404)
          break
        }
        case "duplicate email (409)": {
          // The email of one of this loop's live contacts (a deleted contact's email is free again).
          await call(op, "POST", "/v1/contacts", { email: emailOf.get(mine("contacts")) }, 409)
          break
        }
      }
    }
    agent.destroy()
  }
  await Promise.all(Array.from({ length: connections }, (_, i) => loop(i)))
}
