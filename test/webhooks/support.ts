import { expect, onTestFinished } from "vitest"
import type { Host } from "../http/client.js"
import { eventually, type Receiver, startReceiver } from "./receiver.js"

/** Workspaces enough for one per test: each test sees only its own webhooks and deliveries. */
const WORKSPACE_COUNT = 40
export const workspaceKey = (i: number) => `key_webhooks_${i}_0123456789`
export const WEBHOOK_API_KEYS = Array.from({ length: WORKSPACE_COUNT }, (_, i) => `ws_hook_${i}:${workspaceKey(i)}`).join(",")

/** A fresh workspace for the calling test, of the host started with WEBHOOK_API_KEYS. */
export const workspaces = () => {
  let next = 0
  return () => {
    if (next >= WORKSPACE_COUNT) throw new Error("out of test workspaces: raise WORKSPACE_COUNT")
    const i = next++
    return { id: `ws_hook_${i}`, key: workspaceKey(i) }
  }
}

/** A receiver closed when the test ends. */
export const receiverForTest = async (): Promise<Receiver> => {
  const receiver = await startReceiver()
  onTestFinished(() => receiver.close())
  return receiver
}

export interface Scoped {
  readonly call: Host["call"]
  readonly workspaceId: string
}

/** The host's API as one workspace. */
export const as = (host: Host, workspace: { id: string; key: string }): Scoped => ({
  workspaceId: workspace.id,
  call: (method, path, options = {}) => host.call(method, path, { key: workspace.key, ...options })
})

export const register = async (
  api: Scoped,
  url: string,
  options: { readonly events?: ReadonlyArray<string>; readonly secret?: string } = {}
) => {
  const created = await api.call("POST", "/v1/webhooks", {
    body: { url, events: options.events ?? ["*"], ...(options.secret === undefined ? {} : { secret: options.secret }) }
  })
  expect(created.status, created.text).toBe(201)
  return created.body as { id: string; url: string; events: Array<string>; status: string; has_secret: boolean }
}

export const createContact = async (api: Scoped, email: string) => {
  const created = await api.call("POST", "/v1/contacts", { body: { email } })
  expect(created.status, created.text).toBe(201)
  return created.body as { id: string; email: string }
}

/** The deliveries of a webhook, newest first (one page of up to 100). */
export const deliveriesOf = async (api: Scoped, webhookId: string, query = "") => {
  const answer = await api.call("GET", `/v1/webhooks/${webhookId}/deliveries?limit=100${query}`)
  expect(answer.status, answer.text).toBe(200)
  return answer.body.data as Array<Record<string, any>>
}

/** Polls the single-delivery GET until `done` holds for it. */
export const deliveryWhen = (api: Scoped, webhookId: string, deliveryId: string, done: (d: Record<string, any>) => boolean, what: string) =>
  eventually(async () => {
    const answer = await api.call("GET", `/v1/webhooks/${webhookId}/deliveries/${deliveryId}`)
    return answer.status === 200 && done(answer.body) ? (answer.body as Record<string, any>) : undefined
  }, what)

/** Polls the webhook until `done` holds for it. */
export const webhookWhen = (api: Scoped, webhookId: string, done: (w: Record<string, any>) => boolean, what: string) =>
  eventually(async () => {
    const answer = await api.call("GET", `/v1/webhooks/${webhookId}`)
    return answer.status === 200 && done(answer.body) ? (answer.body as Record<string, any>) : undefined
  }, what)

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The nine event types a webhook can subscribe to, in the API's order, written out: a test of what the engine lists. */
export const EVENT_TYPES = [
  "contact.created",
  "contact.updated",
  "contact.deleted",
  "contact.restored",
  "deal.created",
  "deal.updated",
  "deal.stage_changed",
  "deal.deleted",
  "deal.restored"
]

/** The event types companies and activities added (issue 18), in the API's order after EVENT_TYPES. */
export const LATER_EVENT_TYPES = [
  "company.created",
  "company.updated",
  "company.deleted",
  "company.restored",
  "activity.created",
  "activity.updated",
  "activity.deleted",
  "activity.restored"
]

/** The tombstone of a person's erasure (issue 33), in the API's order after LATER_EVENT_TYPES. */
export const ERASURE_EVENT_TYPES = ["contact.erased"]

/** A merge and its undoing (issue 28), in the API's order after ERASURE_EVENT_TYPES. */
export const MERGE_EVENT_TYPES = ["contact.merged", "contact.unmerged", "company.merged", "company.unmerged"]
