import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { lines, run, serve } from "../http/cli.js"
import { startHost } from "../http/client.js"
import { testDatabase } from "../support/pg.js"
import { eventually } from "./receiver.js"
import { as, deliveriesOf, deliveryWhen, receiverForTest, register, WEBHOOK_API_KEYS, workspaceKey } from "./support.js"

const KEYS = ["--api-keys", `ws_cli:${workspaceKey(0)}`]

const call = async (url: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${workspaceKey(0)}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? null : JSON.parse(text) }
}

describe("dealstream serve: webhook settings (the built CLI)", () => {
  it("reports a bad schedule, timeout or switch in one line and exits non-zero", async () => {
    for (const [args, env, expected] of [
      [
        [],
        { DEALSTREAM_WEBHOOK_RETRY_SCHEDULE: "5s,soon" },
        'dealstream: DEALSTREAM_WEBHOOK_RETRY_SCHEDULE: retry schedule entry 2: "soon" is not a duration such as 500ms, 15s, 5m, 2h or 1d'
      ],
      [["--webhook-timeout", "0s"], {}, 'dealstream: --webhook-timeout: "0s" must be greater than zero'],
      [[], { DEALSTREAM_ALLOW_INSECURE_WEBHOOKS: "maybe" }, 'dealstream: DEALSTREAM_ALLOW_INSECURE_WEBHOOKS must be 1 or 0, got "maybe"']
    ] as const) {
      const cli = run(["serve", ...args], env)
      expect(await cli.exit).not.toBe(0)
      expect(lines(cli.stderr())).toEqual([expected])
    }
  })

  it("applies --allow-insecure-webhooks, the retry schedule and the timeout", async () => {
    const receiver = await receiverForTest()
    receiver.script({ status: 500 }, "hold")
    const cli = await serve([...KEYS, "--allow-insecure-webhooks", "--webhook-timeout", "300ms"], {
      DEALSTREAM_WEBHOOK_RETRY_SCHEDULE: "100ms,100ms"
    })
    try {
      expect(cli.stderr()).toContain("warning: webhooks may target http://")
      const webhook = await call(cli.url, "POST", "/v1/webhooks", { url: receiver.url, events: ["contact.created"] })
      expect(webhook.status).toBe(201)
      expect((await call(cli.url, "POST", "/v1/contacts", { email: "cli@example.com" })).status).toBe(201)
      // 500, then a held answer cut at 300 ms, then a last held one: the schedule has two retries.
      await receiver.waitFor((r) => r.length === 3, "three attempts")
      const deliveryId = String(receiver.received[0]!.headers["x-service-delivery"])
      const failed = await eventually(async () => {
        const answer = await call(cli.url, "GET", `/v1/webhooks/${webhook.body.id}/deliveries/${deliveryId}`)
        return answer.body.status === "failed" ? answer.body : undefined
      }, "the delivery to fail")
      expect(failed.attempts.map((a: { status_code: number | null; error: string | null }) => [a.status_code, a.error])).toEqual([
        [500, null],
        [null, "timed out after 300 ms"],
        [null, "timed out after 300 ms"]
      ])
      // The retry came on the configured schedule (100 ms ± 20%), not the default one, whose first
      // delay is at least 4 s: the bound is that difference, generous for a loaded machine.
      const [first, second] = failed.attempts.map((a: { attempted_at: string }) => Date.parse(a.attempted_at))
      expect(second - first).toBeGreaterThanOrEqual(80)
      expect(second - first).toBeLessThan(4_000)
    } finally {
      cli.child.kill("SIGTERM")
      await cli.exit
    }
  })

  it("refuses a loopback target without the switch", async () => {
    const cli = await serve(KEYS)
    try {
      expect(cli.stderr()).not.toContain("warning: webhooks")
      const answer = await call(cli.url, "POST", "/v1/webhooks", { url: "http://127.0.0.1:9/x", events: ["*"] })
      expect(answer.status).toBe(400)
      expect(answer.body.error.details[0].path).toBe("url")
    } finally {
      cli.child.kill("SIGTERM")
      await cli.exit
    }
  })
})

describe("two hosts on one PostgreSQL", () => {
  let database: Scope.Closeable
  let url: string
  beforeAll(async () => {
    database = Effect.runSync(Scope.make())
    url = await Effect.runPromise(Scope.provide(testDatabase, database))
  })
  afterAll(() => Effect.runPromise(Scope.close(database, Exit.void)))

  // Each host's worker has its own lease owner (<hostname>:<pid>:<random>), even in one process.
  const options = () => ({
    apiKeys: WEBHOOK_API_KEYS,
    storage: { postgres: url },
    webhooks: { allowInsecure: true, retrySchedule: [200, 400, 800], timeoutMillis: 20_000 }
  })

  it("a stopping host aborts its attempt and gives its lease back: the other host delivers at once, not after the lease", async () => {
    const receiver = await receiverForTest()
    receiver.script("hold", { status: 200 })
    const first = await startHost(options())
    let second: Awaited<ReturnType<typeof startHost>> | undefined
    try {
      const api = as(first, { id: "ws_hook_0", key: workspaceKey(0) })
      const webhook = await register(api, receiver.url, { events: ["contact.created"] })
      expect((await api.call("POST", "/v1/contacts", { body: { email: "handover@example.com" } })).status).toBe(201)
      await receiver.waitFor((r) => r.length === 1, "the attempt of the first host")

      second = await startHost(options())
      await first.close()
      expect(receiver.aborted).toHaveLength(1)
      // The lease would last 20 s + 30 s; given back, the second host claims it within its poll
      // (1 s). The wait's deadline is the point: half the lease, so a lease kept rather than given
      // back fails here, and generous for a loaded machine.
      await receiver.waitFor((r) => r.length === 2, "the second host's attempt", 25_000)
      expect(receiver.received[1]!.headers["webhook-id"]).toBe(receiver.received[0]!.headers["webhook-id"])

      const other = as(second, { id: "ws_hook_0", key: workspaceKey(0) })
      const [delivery] = await deliveriesOf(other, webhook.id)
      const done = await deliveryWhen(other, webhook.id, delivery!.id, (d) => d.status === "succeeded", "success via the second host")
      // The aborted attempt was never recorded: only the second host's answer is.
      expect(done.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([200])
    } finally {
      await first.close()
      await second?.close()
    }
  })
})
