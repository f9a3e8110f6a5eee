// Self time per function of a V8 .cpuprofile, per area (dealstream package, library, Node, V8),
// and inclusive time of dealstream's functions, as Markdown tables: the first look at where a CPU
// profile says the time goes.
import { readFileSync } from "node:fs"

const areaOf = (url) => {
  if (url === "") return "V8 / native"
  const pkg = url.match(/\/packages\/([^/]+)\/dist\//)
  if (pkg) return `dealstream ${pkg[1]}`
  const lib = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//)
  if (lib) return lib[1]
  if (url.startsWith("node:")) return "node internals"
  return url
}

const shortUrl = (url) =>
  url
    .replace(/^file:\/\//, "")
    .replace(/^.*\/node_modules\//, "")
    .replace(/^.*\/packages\//, "packages/")

const keyOf = ({ callFrame }) => {
  const name = callFrame.functionName || "(anonymous)"
  return callFrame.url === "" ? name : `${name} ${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}`
}

export const summarise = (file, top = 25) => {
  const profile = JSON.parse(readFileSync(file, "utf8"))
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  // The profiler's own stop call (node:inspector) is not part of the load.
  const excluded = new Set()
  const exclude = (id) => {
    excluded.add(id)
    for (const child of byId.get(id).children ?? []) exclude(child)
  }
  for (const node of profile.nodes) if (node.callFrame.url === "node:inspector") exclude(node.id)
  const self = new Map()
  let total = 0
  profile.samples.forEach((id, i) => {
    if (excluded.has(id)) return
    const delta = profile.timeDeltas[i] ?? 0
    self.set(id, (self.get(id) ?? 0) + delta)
    total += delta
  })
  // Inclusive time of dealstream's own functions (each call-tree node once per function).
  const inclusive = new Map()
  const totalOf = (id, open) => {
    const node = byId.get(id)
    const key = keyOf(node)
    const mine = key.includes("packages/") && !open.has(key)
    const nextOpen = mine ? new Set(open).add(key) : open
    let sum = self.get(id) ?? 0
    for (const child of node.children ?? []) sum += totalOf(child, nextOpen)
    if (mine) inclusive.set(key, (inclusive.get(key) ?? 0) + sum)
    return sum
  }
  totalOf(profile.nodes[0].id, new Set())
  const functions = new Map()
  const areas = new Map()
  for (const [id, micros] of self) {
    const { callFrame } = byId.get(id)
    const name = callFrame.functionName || "(anonymous)"
    const key = keyOf(byId.get(id))
    functions.set(key, (functions.get(key) ?? 0) + micros)
    const area = ["(garbage collector)", "(idle)", "(program)"].includes(name) ? name : areaOf(callFrame.url)
    areas.set(area, (areas.get(area) ?? 0) + micros)
  }
  const table = (title, map, limit, column = "self ms") =>
    [
      `| ${title} | ${column} | % |`,
      "|---|---:|---:|",
      ...[...map]
        .sort((a, b) => b[1] - a[1])
        .slice(0, limit)
        .map(([key, micros]) => `| \`${key}\` | ${(micros / 1000).toFixed(0)} | ${((micros / total) * 100).toFixed(1)} |`)
    ].join("\n")
  return [
    table("area (self time)", areas, 15),
    table("function (self time)", functions, top),
    table(
      "dealstream function (inclusive time; Effect's fiber runtime cuts many stacks short, so this undercounts)",
      inclusive,
      15,
      "total ms"
    ),
    `Total sampled: ${(total / 1000).toFixed(0)} ms.`
  ].join("\n\n")
}
