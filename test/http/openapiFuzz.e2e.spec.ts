import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { anyPlans, bodyPlans, encodePlan, type Fixtures, headerPlans, idPlans, type Plan, queryPlans } from "../hostile/arbitraries.js"
import { seedFixtures } from "../hostile/fixtures.js"
import { encodeRequest, sendRaw } from "../hostile/rawHttp.js"
import { type Receiver, startReceiver } from "../webhooks/receiver.js"
import { type Host, KEY_A, KEY_B, startHost } from "./client.js"
import { checkerFor } from "./openapiCheck.js"

/*
 * The hostile-input fuzz's requests (test/hostile), sent as raw bytes, answered as the OpenAPI
 * document says: whatever a client sends to a documented operation, the status is one the
 * operation declares, and the body and declared headers match their schemas. (The shared client
 * checks the answers of the end-to-end suites; these are the answers to what no suite sends.)
 * Memory storage: the document does not depend on the storage.
 */

const RUNS = Number(process.env["OPENAPI_FUZZ_RUNS"] ?? 150)

let host: Host
let receiver: Receiver
let fixtures: Fixtures

beforeAll(async () => {
  receiver = await startReceiver()
  host = await startHost({
    rateLimit: 1_000_000,
    rateBurst: 1_000_000,
    webhooks: { allowInsecure: true, retrySchedule: [20, 20], timeoutMillis: 2_000 }
  })
  fixtures = await seedFixtures(host, null, { own: KEY_A, other: KEY_B }, receiver.url)
})

afterAll(async () => {
  await host?.close()
  await receiver?.close()
})

/**
 * What the HTTP server answers before any operation, to a request that is not valid HTTP/1.1 or
 * that expects what it cannot meet (host/parserErrors.ts): the API's description says so, no
 * operation declares it.
 */
const TRANSPORT_REFUSALS = new Set([
  "the request is not valid HTTP/1.1",
  "the request did not arrive completely in time",
  "the chunk extensions are too large",
  "the request line and headers are larger than 16 KiB",
  "Expect supports only 100-continue"
])

const refusedBeforeAnyOperation = (text: string): boolean => {
  try {
    return TRANSPORT_REFUSALS.has(JSON.parse(text)?.error?.message)
  } catch {
    return false
  }
}

const conforms = async (plan: Plan) => {
  const answer = await sendRaw(host.url, encodeRequest(encodePlan(plan)))
  if (refusedBeforeAnyOperation(answer.text)) return
  const headers = new Headers()
  for (const [name, value] of Object.entries(answer.headers)) headers.set(name, value)
  const problems = (await checkerFor(host.url)).problems(plan.method, plan.target, { status: answer.status, headers, text: answer.text })
  expect(problems, `${plan.method} ${plan.target} → ${answer.status}\n${answer.text.slice(0, 300)}`).toEqual([])
}

describe("answers to hostile requests conform to the OpenAPI document", () => {
  for (const [name, plans] of [
    ["bodies", bodyPlans],
    ["queries", queryPlans],
    ["path ids", idPlans],
    ["headers", headerPlans],
    ["anything", anyPlans]
  ] as const) {
    it(name, async () => {
      await fc.assert(fc.asyncProperty(plans(fixtures), conforms), { numRuns: RUNS })
    }, 180_000)
  }
})
