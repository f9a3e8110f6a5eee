// Runs autocannon in a process of its own (never in a server's): the specs one after another,
// in one process per call so that its start-up is paid once per round, not once per figure.
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const driver = fileURLToPath(new URL("autocannonDriver.mjs", import.meta.url))

export const autocannonRuns = async (specs) => {
  const seconds = specs.reduce((sum, spec) => sum + spec.duration, 0)
  const { stdout } = await promisify(execFile)(process.execPath, [driver, JSON.stringify(specs)], {
    maxBuffer: 1 << 20,
    timeout: Math.ceil((seconds + 60) * 1000)
  })
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
}
