// Child process (run with --expose-gc): resident memory an in-process engine on memory storage
// holds per contact. Prints one JSON line: { contacts, rssBytes, heapBytes } (deltas after GC).
import { createPromiseEngine } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { contactFields, workspaceId } from "./systems/shared.mjs"

const contacts = Number(process.argv[2] ?? 100_000)
const ctx = { workspaceId, requestId: null, actor: "bench" }

const settle = async () => {
  for (let i = 0; i < 3; i++) {
    global.gc()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return process.memoryUsage()
}

const crm = await createPromiseEngine(MemoryStorage.layer)
// The engine, its workspace and the code paths exist before the baseline is taken.
for (let i = 0; i < 200; i++) await crm.contacts.create(ctx, contactFields("warm", i))
const before = await settle()
for (let i = 0; i < contacts; i++) await crm.contacts.create(ctx, contactFields("fp", i))
const after = await settle()
process.stdout.write(`${JSON.stringify({ contacts, rssBytes: after.rss - before.rss, heapBytes: after.heapUsed - before.heapUsed })}\n`)
await crm.dispose()
