// Sums a sampling heap profile (promotedSamples.mjs's, or DevTools') by allocation site: the
// sites first, then their last six frames, largest first.
//   node bench/heap/promotedTop.mjs <file.heapprofile> [rows]
import { readFileSync } from "node:fs"

const [file, rows = "20"] = process.argv.slice(2)
const { head } = JSON.parse(readFileSync(file, "utf8"))
const bySite = new Map()
const byStack = new Map()
const add = (map, key, bytes) => map.set(key, (map.get(key) ?? 0) + bytes)
const walk = (node, frames) => {
  const { functionName, url, lineNumber } = node.callFrame
  const here = [...frames, `${functionName || "(anonymous)"} ${url.split("/").slice(-3).join("/")}:${lineNumber + 1}`]
  if (node.selfSize > 0) {
    add(bySite, here.at(-1), node.selfSize)
    add(byStack, here.slice(-6).join(" ← "), node.selfSize)
  }
  for (const child of node.children) walk(child, here)
}
walk(head, [])
const MiB = 1024 * 1024
const print = (map) => {
  for (const [key, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(rows)))
    console.log(`${(bytes / MiB).toFixed(1)} MB  ${key}`)
}
console.log(`sampled ${([...bySite.values()].reduce((a, b) => a + b, 0) / MiB).toFixed(1)} MB`)
print(bySite)
console.log("--- by stack")
print(byStack)
