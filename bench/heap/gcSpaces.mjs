// Preloaded into a host (`--import bench/heap/gcSpaces.mjs`, e.g. as exportByCurl.mjs's node flags):
// after every GC, one line to /tmp/gc-spaces-<pid>.log with its kind (1 scavenge, 4 mark-compact)
// and each heap space's size and use in MB. What it is for: the export's RSS growth is the young
// generation growing and what each scavenge promotes, which `--trace-gc` shows less directly.
import { appendFileSync } from "node:fs"
import { PerformanceObserver } from "node:perf_hooks"
import { getHeapSpaceStatistics } from "node:v8"

const file = `/tmp/gc-spaces-${process.pid}.log`
const MiB = 1024 * 1024
const spaces = () =>
  Object.fromEntries(
    getHeapSpaceStatistics()
      .filter((space) => space.space_size > 0)
      .map((space) => [space.space_name, [Math.round(space.space_size / MiB), Math.round(space.space_used_size / MiB)]])
  )
let pending = []
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    pending.push(
      JSON.stringify({ at: Math.round(entry.startTime), kind: entry.detail?.kind, ms: Number(entry.duration.toFixed(1)), ...spaces() })
    )
  }
}).observe({ entryTypes: ["gc"] })
// Written in batches: a write per GC would itself be part of what is measured.
setInterval(() => {
  if (pending.length === 0) return
  appendFileSync(file, `${pending.join("\n")}\n`)
  pending = []
}, 200).unref()
