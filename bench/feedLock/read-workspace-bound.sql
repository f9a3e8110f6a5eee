WITH snapshot AS MATERIALIZED (SELECT pg_current_snapshot() AS s),
  locks AS MATERIALIZED (
    SELECT locktype, virtualtransaction, transactionid FROM pg_locks
    WHERE (locktype = 'transactionid' AND mode = 'ExclusiveLock' AND granted)
      OR (locktype = 'advisory' AND classid = 1717920100 AND objid = hashtext('ws_bench')::oid AND objsubid = 2
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
  ),
  bound AS MATERIALIZED (
    SELECT coalesce((
      SELECT min(x) FROM pg_snapshot_xip(snapshot.s) AS x
      WHERE NOT EXISTS (SELECT 1 FROM locks AS own WHERE own.locktype = 'transactionid' AND own.transactionid = x::xid)
        OR EXISTS (
          SELECT 1 FROM locks AS own JOIN locks AS mark ON mark.virtualtransaction = own.virtualtransaction AND mark.locktype = 'advisory'
          WHERE own.locktype = 'transactionid' AND own.transactionid = x::xid
        )
    ), pg_snapshot_xmax(snapshot.s)) AS below FROM snapshot
  )
(SELECT xact_id::text AS xact, sequence, data FROM ds_events WHERE workspace_id = 'ws_bench' AND xact_id < (SELECT below FROM bound) ORDER BY xact_id, sequence LIMIT 100)
UNION ALL (SELECT xact_id::text AS xact, sequence, data FROM ds_events WHERE workspace_id = 'ws_bench' AND xact_id < (SELECT below FROM bound) ORDER BY xact_id DESC, sequence DESC LIMIT 1);
