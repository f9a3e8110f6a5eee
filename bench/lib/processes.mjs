// Servers under test run in processes of their own: the dealstream host, the bare node:http
// server and the fastify server. Each prints `listening on <url>` on stderr when ready.
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const hostBin = fileURLToPath(new URL("../../packages/http/dist/bin.js", import.meta.url))

// Every server this process started: whatever happens to a scenario, none outlives the bench.
const running = new Set()
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL")
})

/**
 * Starts `node [nodeArgs] script args`, resolves once it says where it listens. Its stdout is
 * dropped (the host's JSON request log), stderr is kept (the last 4 KiB) for error messages.
 */
export const spawnServer = ({ name, script, args = [], nodeArgs = [], env = {}, timeoutMs = 30_000 }) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...env }
    })
    let stderr = ""
    let ready = false
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${name} did not start within ${timeoutMs / 1000} s: ${stderr.slice(-500)}`))
    }, timeoutMs)
    running.add(child)
    const exited = new Promise((done) => child.once("exit", (code, signal) => done({ code, signal })))
    exited.then(() => running.delete(child))
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-4096)
      const match = !ready && stderr.match(/listening on (https?:\/\/\S+)/)
      if (!match) return
      ready = true
      clearTimeout(timer)
      resolve({
        url: match[1],
        pid: child.pid,
        stderr: () => stderr,
        /** SIGTERM, then the exit (the host drains and exits 0; a CPU profile is written on exit). */
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
          const kill = setTimeout(() => child.kill("SIGKILL"), 15_000)
          const result = await exited
          clearTimeout(kill)
          return result
        }
      })
    })
    exited.then(({ code, signal }) => {
      if (ready) return
      clearTimeout(timer)
      reject(new Error(`${name} exited (${code ?? signal}) before listening: ${stderr.slice(-500)}`))
    })
  })

export const API_KEY = "bench-key-0123456789"
export const WORKSPACE = "bench"

/** The dealstream host on a PostgreSQL database (or on memory without one), rate limits out of the way. */
export const startHost = ({ databaseUrl, nodeArgs = [], env = {}, extraArgs = [] }) =>
  spawnServer({
    name: "dealstream host",
    script: hostBin,
    nodeArgs,
    env,
    args: [
      "serve",
      ...(databaseUrl === undefined ? ["--storage", "memory"] : ["--storage", "postgres", "--database-url", databaseUrl]),
      "--api-keys",
      `${WORKSPACE}:${API_KEY}`,
      "--rate-limit",
      "1000000000",
      "--rate-burst",
      "1000000000",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      ...extraArgs
    ]
  })

export const authHeaders = { authorization: `Bearer ${API_KEY}` }

/** A JSON request to a server under test; throws on an unexpected status. */
export const request = async (base, method, path, body, expected = [200, 201]) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...authHeaders, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const bytes = Buffer.from(await response.arrayBuffer())
  if (!expected.includes(response.status)) {
    throw new Error(`${method} ${path}: ${response.status} ${bytes.toString("utf8").slice(0, 300)}`)
  }
  return { status: response.status, headers: response.headers, bytes, json: () => JSON.parse(bytes.toString("utf8")) }
}
