import { randomBytes } from "node:crypto"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { run, serve } from "../http/cli.js"
import { testDatabase } from "../support/pg.js"
import { eventually, startReceiver } from "../webhooks/receiver.js"

/** A secret-looking token nobody else could print by chance. */
const token = (prefix: string) => `${prefix}${randomBytes(18).toString("base64url")}`

interface Seen {
  readonly request: string
  readonly status: number
  readonly headers: string
  readonly body: string
}

// The real host process with stdout and stderr captured, exercised the way clients and webhook
// receivers would, then every secret it was given is looked for in everything it wrote and answered.
describe("keys, webhook secrets and Authorization headers never reach a log line, an error or a response", () => {
  const scope = Effect.runSync(Scope.make())
  let url = ""
  beforeAll(async () => {
    url = await Effect.runPromise(Scope.provide(testDatabase, scope))
  })
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))

  it("through valid, invalid and malformed keys, errors, webhook writes and failing deliveries", async () => {
    const storage = ["--storage", "postgres", "--database-url", url]
    const stored = run(["keys", "create", "--workspace", "ws_stored", ...storage])
    expect(await stored.exit).toBe(0)
    const storedKey = stored.stdout().trim()
    const envKey = token("dsk_env_")
    const wrongKey = token("dsk_wrong_")
    const webhookSecret = token("sk_first_")
    const newSecret = token("sk_second_")
    const deadTargetSecret = token("sk_dead_")
    const shortSecret = `s7${randomBytes(4).toString("base64url").slice(0, 5)}`
    const longSecret = token("sk_long_").padEnd(600, "Q")

    const receiver = await startReceiver()
    // Keys are configured, so the dev key banner (which prints its key on purpose) never appears.
    const host = await serve(storage, {
      DEALSTREAM_API_KEYS: `ws_env:${envKey}`,
      DEALSTREAM_ALLOW_INSECURE_WEBHOOKS: "1",
      DEALSTREAM_WEBHOOK_RETRY_SCHEDULE: "100ms,100ms",
      DEALSTREAM_WEBHOOK_TIMEOUT: "2s"
    })
    const seen: Array<Seen> = []
    const authorizations: Array<string> = []
    const call = async (
      method: string,
      path: string,
      options: { auth?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> } = {}
    ) => {
      const auth = options.auth === undefined ? `Bearer ${envKey}` : options.auth
      const headers: Record<string, string> = { ...options.headers }
      if (auth !== null) {
        headers["authorization"] = auth
        authorizations.push(auth)
      }
      let body = options.raw
      if (options.body !== undefined) {
        body = JSON.stringify(options.body)
        headers["content-type"] ??= "application/json"
      }
      const response = await fetch(`${host.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
      const text = await response.text()
      seen.push({ request: `${method} ${path}`, status: response.status, headers: JSON.stringify([...response.headers]), body: text })
      return { status: response.status, body: text === "" ? null : JSON.parse(text) }
    }

    let closed = false
    try {
      // Valid keys, both kinds.
      expect((await call("GET", "/v1/contacts")).status).toBe(200)
      expect((await call("GET", "/v1/contacts", { auth: `Bearer ${storedKey}` })).status).toBe(200)
      // Unknown and malformed credentials, some carrying a real key.
      const malformed = [
        `Bearer ${wrongKey}`,
        `bearer   ${token("dsk_case_")}`,
        `Token ${token("tok_")}`,
        `Basic ${Buffer.from(`admin:${token("pw_")}`).toString("base64")}`,
        `Bearer ${token("dsk_two_")} ${token("dsk_parts_")}`,
        `Bearer ${envKey}x`,
        envKey,
        `Bearer ${token("dsk_first_")}, Bearer ${storedKey}`,
        `Bearer`
      ]
      for (const auth of malformed) {
        const answer = await call("GET", "/v1/contacts", { auth })
        expect([auth, answer.status]).toEqual([auth, 401])
      }
      expect((await call("GET", "/v1/contacts", { auth: null })).status).toBe(401)

      // Errors of every kind the API answers.
      expect((await call("POST", "/v1/contacts", { body: { email: "not-an-email" } })).status).toBe(400)
      expect((await call("POST", "/v1/contacts", { raw: '{"email": ', headers: { "content-type": "application/json" } })).status).toBe(400)
      expect((await call("GET", "/v1/contacts/con_missing")).status).toBe(404)
      const contact = await call("POST", "/v1/contacts", { body: { email: "ada@example.com" } })
      expect(contact.status).toBe(201)
      expect((await call("POST", "/v1/contacts", { body: { email: "ADA@example.com" } })).status).toBe(409)
      expect(
        (await call("PATCH", `/v1/contacts/${contact.body.id}`, { body: { first_name: "Ada" }, headers: { "if-match": '"99"' } })).status
      ).toBe(412)
      expect((await call("POST", "/v1/contacts", { raw: "email=x", headers: { "content-type": "text/plain" } })).status).toBe(415)

      // Webhooks: the secret is write-only, and refused secrets are not echoed either.
      const webhook = await call("POST", "/v1/webhooks", { body: { url: `${receiver.url}/hook`, events: ["*"], secret: webhookSecret } })
      expect(webhook.status).toBe(201)
      expect(webhook.body.has_secret).toBe(true)
      expect((await call("POST", "/v1/webhooks", { body: { url: receiver.url, events: ["*"], secret: shortSecret } })).status).toBe(400)
      expect((await call("POST", "/v1/webhooks", { body: { url: receiver.url, events: ["*"], secret: longSecret } })).status).toBe(400)
      expect((await call("POST", "/v1/webhooks", { body: { url: receiver.url, events: ["no.such"], secret: webhookSecret } })).status).toBe(
        400
      )
      expect((await call("GET", `/v1/webhooks/${webhook.body.id}`)).status).toBe(200)
      expect((await call("GET", "/v1/webhooks")).status).toBe(200)

      // A delivery that succeeds, signed with the secret…
      expect((await call("POST", "/v1/contacts", { body: { email: "signed@example.com" } })).status).toBe(201)
      await receiver.waitFor((r) => r.length >= 1, "the first delivery")
      expect(receiver.received[0]!.headers["webhook-signature"]).toMatch(/^v1,/)
      // …then a new secret and a failing receiver: retried, exhausted, the webhook turns failed.
      expect((await call("PATCH", `/v1/webhooks/${webhook.body.id}`, { body: { secret: newSecret } })).status).toBe(200)
      receiver.script({ status: 500, body: "receiver exploded" })
      expect((await call("POST", "/v1/contacts", { body: { email: "fails@example.com" } })).status).toBe(201)
      await receiver.waitFor((r) => r.length >= 4, "three attempts of the failing delivery")
      const failed = await eventually(async () => {
        const list = await call("GET", `/v1/webhooks/${webhook.body.id}/deliveries?status=failed`)
        return list.body.data.length === 1 ? list.body.data[0] : undefined
      }, "the delivery to fail")
      expect((await call("GET", `/v1/webhooks/${webhook.body.id}/deliveries/${failed.id}`)).status).toBe(200)
      receiver.script({ status: 200 })
      expect((await call("PATCH", `/v1/webhooks/${webhook.body.id}`, { body: { status: "active" } })).status).toBe(200)
      expect((await call("POST", `/v1/webhooks/${webhook.body.id}/deliveries/${failed.id}/replay`)).status).toBe(202)
      await receiver.waitFor((r) => r.length >= 5, "the replay")

      // A target that refuses connections: attempts end in transport errors.
      const dead = await call("POST", "/v1/webhooks", {
        body: { url: "http://127.0.0.1:9/dead", events: ["contact.updated"], secret: deadTargetSecret }
      })
      expect(dead.status).toBe(201)
      expect((await call("PATCH", `/v1/contacts/${contact.body.id}`, { body: { first_name: "Ada" } })).status).toBe(200)
      await eventually(async () => {
        const list = await call("GET", `/v1/webhooks/${dead.body.id}/deliveries?status=failed`)
        return list.body.data.length === 1 ? true : undefined
      }, "the delivery to the dead target to fail")
      expect((await call("DELETE", `/v1/webhooks/${dead.body.id}`)).status).toBe(204)

      host.child.kill("SIGTERM")
      closed = true
      expect(await host.exit).toBe(0)
    } finally {
      if (!closed) host.child.kill("SIGKILL")
      await receiver.close()
    }

    const stdout = host.stdout()
    const stderr = host.stderr()
    // The log is there to be searched: one JSON line per request, the refused ones included.
    const logged = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line))
    const requestLines = logged.filter((line) => typeof line.request_id === "string")
    expect(requestLines.length).toBe(seen.length)
    expect(new Set(requestLines.map((line) => line.status))).toEqual(new Set(seen.map((answer) => answer.status)))
    expect(stderr).toContain("listening on")
    expect(stderr).not.toContain("dev workspace")

    const secrets = [
      storedKey,
      envKey,
      wrongKey,
      webhookSecret,
      newSecret,
      deadTargetSecret,
      shortSecret,
      longSecret,
      ...authorizations.filter((auth) => auth !== "Bearer"),
      // Tokens inside the malformed headers, one by one (the Basic credentials as sent, base64).
      ...authorizations.flatMap((auth) => auth.split(/[\s,]+/)).filter((part) => part.length > 8)
    ]
    for (const secret of secrets) {
      expect(stdout.includes(secret), `stdout holds ${secret}`).toBe(false)
      expect(stderr.includes(secret), `stderr holds ${secret}`).toBe(false)
      for (const answer of seen) {
        expect(
          answer.body.includes(secret) || answer.headers.includes(secret),
          `${answer.request} ${answer.status} answered ${secret}`
        ).toBe(false)
      }
    }
  }, 60_000)
})
