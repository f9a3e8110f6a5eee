// Migrates the database at argv[2] with the built storage adapter (npm run build first).
import { Effect } from "effect"
import { PgStorage } from "../../packages/storage-pg/dist/index.js"

await Effect.runPromise(Effect.scoped(PgStorage.make(process.argv[2])))
