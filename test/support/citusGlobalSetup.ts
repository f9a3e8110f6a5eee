import type { TestProject } from "vitest/node"
import { startCitusCluster } from "./citusCluster.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The Citus suites' cluster: the coordinator's port first, then the workers'. */
    readonly citusPorts: ReadonlyArray<number>
  }
}

/** One Citus cluster (a coordinator and two workers) for the whole `citus` project. */
export default async function setup(project: TestProject) {
  const cluster = await startCitusCluster()
  project.provide("citusPorts", cluster.ports)
  return cluster.stop
}
