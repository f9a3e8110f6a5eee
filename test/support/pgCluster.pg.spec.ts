import { afterAll, describe, expect, it } from "vitest"
import { type PgCluster, PgQueryError, startPgCluster } from "./pgCluster.js"

// The harness the replica and failover tests stand on (issue 30), proved on its own: a primary and
// a synchronous streaming standby of PostgreSQL 15 replicate, pause and resume replay, survive a
// SIGKILL of the primary by a promotion, and take the old primary back as a read-only standby.

let cluster: PgCluster | undefined
afterAll(() => cluster?.stop(), 60_000)

const READ_ONLY_TRANSACTION = "25006"

describe("pgCluster", () => {
  it("replicates, pauses replay, fails over and takes the old primary back as a standby", async () => {
    const phases: Array<string> = []
    let since = performance.now()
    const phase = (name: string) => {
      const now = performance.now()
      phases.push(`${name} ${Math.round(now - since)} ms`)
      since = now
    }
    const started = since

    cluster = await startPgCluster({ synchronous: true })
    const { primary, standby, query } = cluster
    phase("start")
    expect(await cluster.inRecovery(primary)).toBe(false)
    expect(await cluster.inRecovery(standby)).toBe(true)
    expect(await query(primary, "SELECT application_name, state, sync_state FROM pg_stat_replication")).toEqual([
      { application_name: standby.name, state: "streaming", sync_state: "sync" }
    ])

    const database = await cluster.createDatabase(primary)
    const notes = (server: typeof primary) =>
      query<{ id: number }>(server, "SELECT id FROM notes ORDER BY id", [], database).then((rows) => rows.map((row) => row.id))
    const write = (server: typeof primary, id: number) => query(server, "INSERT INTO notes (id) VALUES ($1)", [id], database)
    await query(primary, "CREATE TABLE notes (id int PRIMARY KEY)", [], database)
    await write(primary, 1)
    await cluster.caughtUp(standby, primary)
    expect(await notes(standby)).toEqual([1])
    phase("replicate")

    // Paused: the standby receives the new row's WAL but does not apply it.
    await cluster.pauseReplay(standby)
    const replayedBefore = await cluster.replayLsn(standby)
    await write(primary, 2)
    const written = await cluster.currentLsn(primary)
    const [received] = await query<{ yes: boolean }>(standby, "SELECT pg_last_wal_receive_lsn() >= $1::pg_lsn AS yes", [written])
    expect(received!.yes).toBe(true) // a synchronous commit returns once the standby has the WAL
    expect(await notes(primary)).toEqual([1, 2])
    expect(await notes(standby)).toEqual([1])
    expect(await cluster.replayLsn(standby)).toBe(replayedBefore)
    await cluster.resumeReplay(standby)
    await cluster.caughtUp(standby, primary, written)
    expect(await notes(standby)).toEqual([1, 2])
    phase("pause and resume")

    // The primary dies; the standby is promoted and takes writes.
    await cluster.kill(primary, "SIGKILL")
    await expect(query(primary, "SELECT 1")).rejects.toThrow(PgQueryError)
    phase("kill")
    await cluster.promote(standby)
    expect(await cluster.inRecovery(standby)).toBe(false)
    await write(standby, 3)
    expect(await notes(standby)).toEqual([1, 2, 3])
    phase("promote")

    // The old primary comes back as a standby of the new one: it replays, and refuses writes.
    await cluster.restartAsStandbyOf(primary, standby)
    expect(await cluster.inRecovery(primary)).toBe(true)
    expect(await query(standby, "SELECT application_name, state, sync_state FROM pg_stat_replication")).toEqual([
      { application_name: primary.name, state: "streaming", sync_state: "sync" }
    ])
    await cluster.caughtUp(primary, standby)
    expect(await notes(primary)).toEqual([1, 2, 3])
    const refused = await write(primary, 4).then(
      () => null,
      (error: unknown) => error
    )
    expect(refused).toBeInstanceOf(PgQueryError)
    expect((refused as PgQueryError).sqlState, String(refused)).toBe(READ_ONLY_TRANSACTION)
    phase("back as standby")

    await cluster.stop()
    phase("stop")
    console.info(`pgCluster: ${Math.round(performance.now() - started)} ms in all (${phases.join(", ")})`)
  }, 180_000)
})
