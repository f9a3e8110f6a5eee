import { availableParallelism } from "node:os"

/**
 * How many test files run at once. Most of them wait on sockets, child processes and PostgreSQL,
 * not on the CPU, so vitest's default (one fewer than the cores: a single worker on a 2-core
 * machine) leaves the machine idle most of the run. Twice the cores, and never fewer than 3.
 * DEALSTREAM_TEST_WORKERS (a whole number) overrides it, 1 running the files one at a time.
 */
export const testWorkers = (env: NodeJS.ProcessEnv = process.env): number => {
  const given = env["DEALSTREAM_TEST_WORKERS"]
  if (given !== undefined && given !== "") {
    const workers = Number(given)
    if (!Number.isInteger(workers) || workers < 1) {
      throw new Error(`DEALSTREAM_TEST_WORKERS must be a whole number of workers (1 or more), got ${JSON.stringify(given)}`)
    }
    return workers
  }
  return Math.max(3, 2 * availableParallelism())
}
