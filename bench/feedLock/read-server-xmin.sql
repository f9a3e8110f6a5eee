WITH bound AS MATERIALIZED (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS below)
(SELECT xact_id::text AS xact, sequence, data FROM ds_events WHERE workspace_id = 'ws_bench' AND xact_id < (SELECT below FROM bound) ORDER BY xact_id, sequence LIMIT 100)
UNION ALL (SELECT xact_id::text AS xact, sequence, data FROM ds_events WHERE workspace_id = 'ws_bench' AND xact_id < (SELECT below FROM bound) ORDER BY xact_id DESC, sequence DESC LIMIT 1);
