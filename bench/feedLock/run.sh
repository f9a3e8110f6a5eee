#!/usr/bin/env bash
# The feed lock's A/B (bench/ANALYSIS.md, "Issue 35"): pgbench scripts against a scratch database
# on a PostgreSQL 15 server (default the machine's, 127.0.0.1:5432), interleaved rounds.
#   bench/feedLock/run.sh [rounds]     (after npm run build; needs Debian's postgresql-15 pgbench)
set -euo pipefail
cd "$(dirname "$0")"
rounds="${1:-3}"
only="${2:-all}"   # all, or reads
pg="${PGBENCH:-/usr/lib/postgresql/15/bin/pgbench}"
base="${FEEDLOCK_SERVER:-postgres://postgres@127.0.0.1:5432}"
psql "$base/postgres" -qc "DROP DATABASE IF EXISTS ds_feedlock" -c "CREATE DATABASE ds_feedlock TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
db="$base/ds_feedlock"
../../scripts/with-node node migrate.mjs "$db"
# The counter option A would serialise commits on (one row per workspace, updated last).
psql "$db" -qc "CREATE TABLE ds_feed_order (workspace_id text PRIMARY KEY, position bigint NOT NULL); INSERT INTO ds_feed_order VALUES ('ws_bench', 0)"
tps() { "$pg" -n -M prepared -c "$2" -j 2 -T "$3" -f "$1" "$db" 2>/dev/null | grep -oP 'tps = \K[0-9.]+'; }
if [ "$only" = reads ]; then psql "$db" -qc "INSERT INTO ds_events (stream_id, stream_version, workspace_id, type, data, metadata, recorded_at)
  SELECT 'con_' || n, 1, 'ws_bench', 'contact.created', '{\"n\": 1}', '{}', now() FROM generate_series(1, 100000) AS n"; fi
for round in $(seq "$rounds"); do
  [ "$only" = reads ] && break
  for c in 8 32; do
    for s in commit-unmarked commit-marked commit-ordered; do echo "commit round=$round clients=$c $s $(tps $s.sql "$c" 6) tps"; done
  done
done
# Reads of a 100-event page, the server otherwise idle, then beside 4 clients committing.
reads="$(mktemp -d)"
trap 'rm -rf "$reads"' EXIT
../../scripts/with-node node readScripts.mjs "$reads"
psql "$db" -qc "VACUUM ANALYZE ds_events"
for load in idle busy; do
  if [ "$load" = busy ]; then "$pg" -n -M prepared -c 4 -j 1 -T $((rounds * 12 + 5)) -f commit-marked.sql "$db" >/dev/null 2>&1 & fi
  for round in $(seq "$rounds"); do
    for s in read-server-xmin read-workspace-bound; do echo "read $load round=$round $s $(tps "$reads/$s.sql" 4 5) tps"; done
  done
  wait
done
psql "$base/postgres" -qc "DROP DATABASE ds_feedlock"
