// A fresh database holding the bench workspace's contacts and deals, seeded by the fast path
// (seed.mjs) into the stages of the default pipeline the engine itself made, and a sample of the
// seeded records checked against core before anything is measured on it.
import { createPromiseEngine } from "@dealstream/core"
import { PgStorage } from "@dealstream/storage-pg"
import { pipelineInfo } from "./engineShapes.mjs"
import { migrateDealstream } from "./postgres.mjs"
import { WORKSPACE } from "./processes.mjs"
import { seed, verifySample } from "./seed.mjs"

export const seededWorkspace = async ({ pg, database, contacts, deals, log }) => {
  const url = await pg.createDatabase(database)
  await migrateDealstream(url)
  const crm = await createPromiseEngine(PgStorage.layer(url))
  const pipeline = (await crm.pipelines.list({ workspaceId: WORKSPACE, requestId: null, actor: "bench" })).data[0]
  await crm.dispose()
  const stageIds = pipeline.stages.map((s) => s.id)
  const seeded = await seed({ url, workspaceId: WORKSPACE, pipelineId: pipeline.id, stageIds, contacts, deals, log })
  const sampled = await verifySample({ url, workspaceId: WORKSPACE, pipeline: pipelineInfo(pipeline), size: 200 })
  return { url, pipeline, seeded, sampled }
}
