import { type ChildProcess, spawn } from "node:child_process"
import { resolve } from "node:path"

/** The built CLI (`npx tsc -b` first): these tests run what `npm start` runs. */
export const BIN = resolve(import.meta.dirname, "../../packages/http/dist/bin.js")

export interface Cli {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exit: Promise<number | null>
}

/** `dealstream <args>` with only the given settings: the caller's PORT, DEALSTREAM_* and DATABASE_URL are dropped. */
export interface RunOptions {
  /** A process group of its own, as a terminal gives a command: `process.kill(-pid, "SIGINT")` is Ctrl-C. */
  readonly group?: boolean
}

export const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}, options: RunOptions = {}): Cli => {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => key !== "PORT" && key !== "DATABASE_URL" && !key.startsWith("DEALSTREAM_"))
  )
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...clean, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.group === true
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk) => (stdout += chunk))
  child.stderr!.on("data", (chunk) => (stderr += chunk))
  const exit = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
  return { child, stdout: () => stdout, stderr: () => stderr, exit }
}

/**
 * Starts `dealstream serve` on a free port of 127.0.0.1 and resolves its URL once it listens.
 * Memory storage unless the arguments or the environment name one, or `cliDefault` asks for the
 * CLI's own default (embedded, which puts a database in the data directory).
 */
export const serve = async (
  args: ReadonlyArray<string>,
  env: Record<string, string> = {},
  options: RunOptions & { readonly cliDefault?: boolean } = {}
) => {
  const named = options.cliDefault === true || args.includes("--storage") || env["DEALSTREAM_STORAGE"] !== undefined
  const storage = named ? [] : ["--storage", "memory"]
  const cli = run(["serve", "--host", "127.0.0.1", "--port", "0", ...storage, ...args], env, options)
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const match = /listening on (http:\/\/\S+)/.exec(cli.stderr())
    if (match) return { ...cli, url: match[1]! }
    if (cli.child.exitCode !== null) throw new Error(`exited early: ${cli.stderr()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
  cli.child.kill("SIGKILL")
  throw new Error(`did not start: ${cli.stderr()}`)
}

/** Output split in lines, so that "one line" is an assertion. */
export const lines = (text: string) => text.trimEnd().split("\n")
