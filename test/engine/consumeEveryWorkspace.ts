import { ALL_WORKSPACES, type JsonObject, type PromiseConsumer, type PromiseEngine } from "@dealstream/core"
import { expect } from "vitest"
import { handlerSignals } from "./consumeWaits.js"

/**
 * A consumer over every workspace (issue 29), the same on both storages: two processes (two
 * engines, or one engine twice on memory) run one name; workspaces with events before the start and
 * one whose first event comes after it are all handled, each workspace by one process at a time,
 * each event once, a workspace's in its feed's order. A stop hands its workspaces to the other
 * process; a reset of every workspace replays each from its start.
 */

const contextOf = (workspaceId: string) => ({ workspaceId, requestId: null, actor: "writer" })

/** The workspace's whole change feed, as event ids in order. */
const logOf = async (crm: PromiseEngine, workspaceId: string): Promise<Array<string>> => {
  const ids: Array<string> = []
  for (let after: string | undefined; ; ) {
    const page = await crm.events.list(contextOf(workspaceId), { limit: "1000", ...(after === undefined ? {} : { after }) })
    if (page.data.length === 0) return ids
    ids.push(...page.data.map((event) => event["id"] as string))
    after = page.next_cursor
  }
}

interface Handled {
  readonly consumer: number
  readonly workspace: string
  readonly id: string
}

export const everyWorkspace = async (engines: readonly [PromiseEngine, PromiseEngine], tag: string) => {
  const workspaces = [0, 1, 2].map((i) => `ws_every_${tag}_${i}`)
  const write = async (crm: PromiseEngine, workspaceId: string, updates: number) => {
    const made = await crm.contacts.create(contextOf(workspaceId), { email: `c.${Math.random().toString(36).slice(2)}@example.com` })
    for (let i = 1; i <= updates; i++)
      await crm.contacts.update(contextOf(workspaceId), made.data["id"] as string, { title: String(i) }, null)
  }
  await write(engines[0], workspaces[0]!, 2)
  await write(engines[1], workspaces[1]!, 0)

  const handled: Array<Handled> = []
  const signals = handlerSignals(40_000)
  const name = `every_${tag}`
  const start = (consumer: number): Promise<PromiseConsumer> =>
    engines[consumer]!.consume({
      name,
      workspaceId: ALL_WORKSPACES,
      // A standby asks for each workspace every third of this: a stopped holder's are taken within a second.
      leaseMillis: 3_000,
      handler: async (event: JsonObject) => {
        handled.push({ consumer, workspace: event["workspace_id"] as string, id: event["id"] as string })
        signals.changed()
      }
    })
  const consumers = [await start(0), await start(1)]
  // A workspace whose first event comes after the consumers started, and more events in one they know.
  await write(engines[1], workspaces[2]!, 1)
  await write(engines[0], workspaces[0]!, 1)

  const logs = async () => Promise.all(workspaces.map((workspace) => logOf(engines[0], workspace)))
  const all = await logs()
  const total = all.reduce((sum, log) => sum + log.length, 0)
  await signals.until(() => handled.length >= total, `${total} events of ${workspaces.length} workspaces handled`)
  expect(new Set(handled.map((h) => h.id)).size).toBe(handled.length)
  workspaces.forEach((workspace, i) => {
    const mine = handled.filter((h) => h.workspace === workspace)
    expect(
      mine.map((h) => h.id),
      `${workspace} in its feed's order`
    ).toEqual(all[i])
    expect(new Set(mine.map((h) => h.consumer)).size, `${workspace} by one process`).toBe(1)
  })

  // The holder of the first workspace stops once its checkpoint is stored (a stop rolls back a page
  // not yet committed, which the next holder is given again): the other process takes the workspace
  // over and goes on from that checkpoint.
  const holder = handled.find((h) => h.workspace === workspaces[0])!.consumer
  const through = (await engines[0].events.list(contextOf(workspaces[0]!), { limit: "1000" })).next_cursor
  for (let read = 1; (await engines[0].consumers.checkpoint({ name, workspaceId: workspaces[0]! }))?.cursor !== through; read++) {
    if (read > 2_000) throw new Error(`the checkpoint of ${workspaces[0]} did not reach ${through}`)
    await new Promise((wake) => setTimeout(wake, 10))
  }
  await consumers[holder]!.stop()
  const before = handled.length
  await write(engines[1 - holder]!, workspaces[0]!, 0)
  await signals.until(() => handled.length > before, "the stopped holder's workspace taken over")
  const after = handled.slice(before)
  expect(after.map((h) => [h.consumer, h.workspace])).toEqual([[1 - holder, workspaces[0]]])
  expect(after[0]!.id).toBe((await logOf(engines[0], workspaces[0]!)).at(-1))

  // A reset of every workspace: the running process handles each workspace again from its start.
  const replayedFrom = handled.length
  const logsNow = await logs()
  const totalNow = logsNow.reduce((sum, log) => sum + log.length, 0)
  await engines[0].consumers.reset({ name, workspaceId: ALL_WORKSPACES, from: null })
  await signals.until(() => handled.length >= replayedFrom + totalNow, "every workspace handled again after the reset")
  const replayed = handled.slice(replayedFrom)
  workspaces.forEach((workspace, i) => {
    expect(
      replayed.filter((h) => h.workspace === workspace).map((h) => h.id),
      `${workspace} again`
    ).toEqual(logsNow[i])
  })
  for (const workspace of workspaces) {
    expect(await engines[0].consumers.checkpoint({ name, workspaceId: workspace })).not.toBeNull()
  }

  // A cursor names one workspace: refused over every workspace, and a reset to one too.
  await expect(
    engines[0].consume({ name: `${name}_from`, workspaceId: ALL_WORKSPACES, from: "abc", handler: async () => {} })
  ).rejects.toMatchObject({ _tag: "ValidationError" })
  await expect(engines[0].consumers.reset({ name, workspaceId: ALL_WORKSPACES, from: "abc" })).rejects.toMatchObject({
    _tag: "ValidationError"
  })
  await consumers[1 - holder]!.stop()
}
