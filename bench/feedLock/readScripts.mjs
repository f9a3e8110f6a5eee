// Writes the pgbench read scripts into argv[2]: a readFeed page of 100 events and its tail, under
// each bound as feedBound.ts writes it (npm run build first), so the A/B measures the code itself.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { serverXmin, workspaceWriters } from "../../packages/storage-pg/dist/feedBound.js"

const page = (bound) =>
  `WITH ${bound("'ws_bench'")}
(SELECT xact_id::text AS xact, sequence, data FROM ds_events WHERE workspace_id = 'ws_bench' AND xact_id < (SELECT below FROM bound) ORDER BY xact_id, sequence LIMIT 100)
UNION ALL (SELECT xact_id::text AS xact, sequence, data FROM ds_events WHERE workspace_id = 'ws_bench' AND xact_id < (SELECT below FROM bound) ORDER BY xact_id DESC, sequence DESC LIMIT 1);
`
writeFileSync(join(process.argv[2], "read-workspace-bound.sql"), page(workspaceWriters).replace(/\n\s*/g, " ").trim() + "\n")
writeFileSync(join(process.argv[2], "read-server-xmin.sql"), page(serverXmin).replace(/\n\s*/g, " ").trim() + "\n")
