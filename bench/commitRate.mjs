// Commands per second through the engine: create-contact and move-stage, on memory and on an
// embedded PostgreSQL started here. Run after `npm run build`: `node bench/commitRate.mjs [--quick]`.
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createPromiseEngine } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { EmbeddedPostgres, PgStorage } from "@dealstream/storage-pg"
import { Effect, Layer } from "effect"

const quick = process.argv.includes("--quick")
const seconds = quick ? 3 : 10

const ctx = { workspaceId: "bench", requestId: null, actor: "bench" }

/** Runs `op` from `concurrency` loops for `seconds`; returns completed operations per second. */
const rate = async (concurrency, op) => {
  let done = 0
  let n = 0
  const until = Date.now() + seconds * 1000
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < until) {
      await op(n++)
      done++
    }
  }))
  return done / seconds
}

const measure = async (name, crm) => {
  const pipeline = (await crm.pipelines.list(ctx)).data[0]
  const stages = pipeline.stages.map((s) => s.id)
  const deals = []
  for (let i = 0; i < 64; i++) deals.push((await crm.deals.create(ctx, { name: `d${i}`, pipeline_id: pipeline.id })).data.id)
  const rows = []
  for (const concurrency of [1, 8, 32]) {
    const create = await rate(concurrency, (i) => crm.contacts.create(ctx, { email: `c${concurrency}-${i}-${Math.random().toString(36).slice(2)}@x.io` }))
    // each loop moves its own deal, so the figure is commits, not retries on one stream
    const move = await rate(concurrency, (i) => crm.deals.moveStage(ctx, deals[i % 64], { stage_id: stages[i % 6] }, null))
    rows.push({ storage: name, concurrency, "create-contact/s": Math.round(create), "move-stage/s": Math.round(move) })
  }
  return rows
}

const results = []
{
  const crm = await createPromiseEngine(MemoryStorage.layer)
  results.push(...await measure("memory", crm))
  await crm.dispose()
}
{
  const dir = mkdtempSync(join(tmpdir(), "ds-bench-"))
  // PostgreSQL runs as the postgres user when we are root: it must be able to enter the directory.
  chmodSync(dir, 0o755)
  const storage = Layer.unwrapScoped(
    Effect.map(EmbeddedPostgres.start({ dataDir: join(dir, "pg") }), (running) => PgStorage.layer(running.url))
  )
  const crm = await createPromiseEngine(storage)
  results.push(...await measure("postgres (embedded 18)", crm))
  await crm.dispose()
  rmSync(dir, { recursive: true, force: true })
}
console.table(results)
