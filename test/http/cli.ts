import { type ChildProcess, spawn } from "node:child_process"
import { request as httpRequest } from "node:http"
import { connect } from "node:net"
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

/** A POST whose body is still arriving at the server. */
export interface OpenRequest {
  /** Sends the rest of the body and resolves with the answer. */
  readonly finish: (rest: string) => Promise<{ readonly status: number; readonly body: string }>
}

/**
 * Starts a chunked POST with `Expect: 100-continue` and sends the first part of its body once the
 * server has answered `100 Continue`, which the host does as its handler starts reading the body
 * (on @effect/platform-node 4 Node no longer says it by itself): from then on the request is in
 * flight in the server, not merely on its way (no sleep needed).
 */
export const openRequest = (base: string, path: string, headers: Record<string, string>, start: string): Promise<OpenRequest> =>
  new Promise((opened, fail) => {
    const url = new URL(base)
    let answered: (answer: { status: number; body: string }) => void = () => undefined
    let failed: (error: unknown) => void = fail
    const answer = new Promise<{ status: number; body: string }>((done, reject) => {
      answered = done
      failed = reject
    })
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: "POST",
        headers: { ...headers, "transfer-encoding": "chunked", expect: "100-continue" }
      },
      (response) => {
        let body = ""
        response.on("data", (chunk) => (body += chunk))
        response.on("end", () => answered({ status: response.statusCode!, body }))
      }
    )
    request.on("error", (error) => failed(error))
    request.on("continue", () => {
      request.write(start)
      opened({
        finish: (rest) => {
          request.end(rest)
          return answer
        }
      })
    })
    request.flushHeaders()
  })

/** Resolves once nothing accepts connections at `base` any more (the host closed its listener). */
export const untilRefused = async (base: string, timeoutMs = 30_000) => {
  const url = new URL(base)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const refused = await new Promise<boolean>((done) => {
      const socket = connect(Number(url.port), url.hostname)
      socket.once("connect", () => {
        socket.destroy()
        done(false)
      })
      socket.once("error", (error: NodeJS.ErrnoException) => done(error.code === "ECONNREFUSED"))
    })
    if (refused) return
    if (Date.now() > deadline) throw new Error(`${base} still accepts connections after ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
