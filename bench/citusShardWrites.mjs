// What a write inside a delegated function costs on Citus, by its shape and by where it is sent
// (issue 31: the commit's cost against plain PostgreSQL). One session calls each function 1,500
// times, one at a time, over 16 workspaces, after 100 calls to warm it; prints ms a call.
//   node bench/citusShardWrites.mjs <plain-url>                       (a plain server)
//   node bench/citusShardWrites.mjs <coordinator-url> citus [<worker-url>]
// With a worker URL the functions are made through the coordinator and called on that worker (a
// cluster of one worker, so every shard is there), which runs a delegated function locally.
// Shapes: `noop` (the call alone); `sel`, rows by INSERT … SELECT from jsonb_to_recordset, as the
// commit functions append events; `val`, the same rows by a loop of single-row INSERT … VALUES;
// `wsel` and `wval`, five search words by INSERT … SELECT … ON CONFLICT and by a loop; `exec`,
// `execlock` and `wexec`, the same writes by EXECUTE into the workspace's shard table itself (on
// Citus), `execlock` first taking Citus's shard metadata lock and reading the placement, as a
// write that bypasses Citus's executor would have to, to stay safe under a shard move.
import postgres from "postgres"

const [url, mode, callUrl] = process.argv.slice(2)
const citus = mode === "citus"
const sql = postgres(url, { max: 1, onnotice: () => {} })
const caller = callUrl === undefined ? sql : postgres(callUrl, { max: 1, onnotice: () => {} })
await sql.unsafe("DROP TABLE IF EXISTS bench_t CASCADE; DROP TABLE IF EXISTS bench_w CASCADE")
await sql.unsafe(
  "CREATE TABLE bench_t (workspace_id text NOT NULL, id bigint GENERATED ALWAYS AS IDENTITY, k text, data jsonb, PRIMARY KEY (workspace_id, id))"
)
await sql.unsafe(
  "CREATE TABLE bench_w (workspace_id text NOT NULL, word text NOT NULL, id text NOT NULL, PRIMARY KEY (workspace_id, word, id))"
)
if (citus) {
  await sql.unsafe("SELECT create_distributed_table('bench_t', 'workspace_id', shard_count := 32)")
  await sql.unsafe("SELECT create_distributed_table('bench_w', 'workspace_id', colocate_with := 'bench_t')")
}
// On Citus a shard has no identity default of its own: the distributed table's sequence gives ids.
const shardOf = (table) => (citus ? `'${table}_' || get_shard_id_for_distribution_column('${table}', ws)` : `'${table}'`)
const idColumn = citus ? "id, " : ""
const idValue = citus ? "nextval(pg_get_serial_sequence(''bench_t'', ''id'')), " : ""
const overriding = citus ? "OVERRIDING SYSTEM VALUE " : ""
const execInsert = (target) =>
  `EXECUTE format('INSERT INTO %I (workspace_id, ${idColumn}k, data) ${overriding}SELECT $1, ${idValue}r.k, r.d FROM jsonb_to_recordset($2) AS r(k text, d jsonb)', ${target}) USING ws, rows`
const lockAndCheck = citus
  ? `shard := get_shard_id_for_distribution_column('bench_t', ws);
     PERFORM lock_shard_metadata(5, ARRAY[shard]);
     PERFORM 1 FROM pg_dist_placement AS p WHERE p.shardid = shard AND p.groupid = (SELECT groupid FROM pg_dist_local_group);`
  : "shard := 0;"
const body = {
  noop: "PERFORM 1;",
  sel: "INSERT INTO bench_t (workspace_id, k, data) SELECT ws, e.k, e.d FROM jsonb_to_recordset(rows) AS e(k text, d jsonb);",
  val: `FOR r IN SELECT * FROM jsonb_to_recordset(rows) AS x(k text, d jsonb) LOOP
          INSERT INTO bench_t (workspace_id, k, data) VALUES (ws, r.k, r.d);
        END LOOP;`,
  wsel: `INSERT INTO bench_w (workspace_id, word, id) SELECT ws, x.word, 'c' || txid_current()
           FROM jsonb_array_elements_text(rows -> 0 -> 'words') AS x(word) ON CONFLICT DO NOTHING;`,
  wval: `FOR word IN SELECT jsonb_array_elements_text(rows -> 0 -> 'words') LOOP
           INSERT INTO bench_w (workspace_id, word, id) VALUES (ws, word, 'c' || txid_current()) ON CONFLICT DO NOTHING;
         END LOOP;`,
  exec: `${execInsert(shardOf("bench_t"))};`,
  execlock: `${lockAndCheck}
             ${execInsert(citus ? "'bench_t_' || shard" : "'bench_t'")};`,
  wexec: `EXECUTE format('INSERT INTO %I (workspace_id, word, id) SELECT $1, x.word, %L FROM jsonb_array_elements_text($2 -> 0 -> ''words'') AS x(word) ON CONFLICT DO NOTHING', ${shardOf("bench_w")}, 'c' || txid_current()) USING ws, rows;`
}
for (const [name, text] of Object.entries(body)) {
  await sql.unsafe(`CREATE OR REPLACE FUNCTION bench_${name}(ws text, rows jsonb) RETURNS void LANGUAGE plpgsql AS $f$
    DECLARE r record; word text; shard bigint;
    BEGIN ${text} END $f$`)
  if (citus) await sql.unsafe(`SELECT create_distributed_function('bench_${name}(text,jsonb)', 'ws', colocate_with := 'bench_t')`)
}
const rows = JSON.stringify([
  { k: "a", d: { x: 1 }, words: ["ann", "lee", "ann@x.io", "acme", "sales"] },
  { k: "b", d: { y: 2 } }
])
const where = citus ? (callUrl === undefined ? "through the coordinator" : "on the worker") : "plain"
for (const name of Object.keys(body)) {
  const call = (i) => caller.unsafe(`SELECT bench_${name}($1, $2::text::jsonb)`, [`ws_${i % 16}`, rows])
  for (let i = 0; i < 100; i++) await call(i)
  const n = 1500
  const started = performance.now()
  for (let i = 0; i < n; i++) await call(i)
  console.log(`${where} ${name}: ${((performance.now() - started) / n).toFixed(3)} ms a call`)
}
if (caller !== sql) await caller.end()
await sql.end()
