// A consumer process for test/engine/consume.e2e.pg.spec.ts, run as `node consumerProcess.ts <url>
// <name> <mode> <batch> <leaseMillis>` on the built packages (`npx tsc -b` first). Its handler adds
// a row per event to consumed_events: through the transaction that stores the checkpoint ("inside"),
// or, the planted bug, on a connection of its own that commits before the checkpoint ("outside").
// After the rows the test lists in kill_points it waits at the test's gate (an advisory lock).
import { createPromiseEngine } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted, Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"

const [url = "", name = "", mode = "inside", batch = "10", lease = "1000"] = process.argv.slice(2)
const insert = "INSERT INTO consumed_events (consumer, event_id, contact_id, title) VALUES ($1, $2, $3, $4)"

const outside =
  mode === "outside"
    ? await Effect.runPromise(
        Scope.provide(PgClient.make({ url: Redacted.make(url), maxConnections: 1 }), Effect.runSync(Scope.make())).pipe(
          Effect.provide(Reactivity.layer)
        )
      )
    : null

const crm = await createPromiseEngine(PgStorage.layer({ url, maxConnections: 3 }))
await crm.consume({
  name,
  workspaceId: "ws_a",
  owner: `pid${process.pid}`,
  batchSize: Number(batch),
  leaseMillis: Number(lease),
  handler: async (event, { transaction }) => {
    const contact = (event["data"] as { contact: { id: string; title: string | null } }).contact
    const params = [name, event["id"], contact.id, contact.title ?? ""]
    if (outside !== null) await Effect.runPromise(outside.unsafe(insert, params))
    else await transaction!.execute(insert, params)
    // The test's gate, at the counts it chose: held there, a row of its page written, to be killed.
    await transaction!.execute(
      `SELECT pg_advisory_xact_lock_shared(hashtext($1)) FROM kill_points
        WHERE consumer = $1 AND at = (SELECT count(*) FROM consumed_events WHERE consumer = $1)`,
      [name]
    )
  }
})
process.stdout.write("consuming\n")
