// Self time per function of a V8 .cpuprofile, and per area (dealstream package, library, Node,
// V8), as Markdown tables: the first look at where a CPU profile says the time goes.
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
  url.replace(/^file:\/\//, "").replace(/^.*\/node_modules\//, "").replace(/^.*\/packages\//, "packages/")

export const summarise = (file, top = 25) => {
  const profile = JSON.parse(readFileSync(file, "utf8"))
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const self = new Map()
  let total = 0
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0
    self.set(id, (self.get(id) ?? 0) + delta)
    total += delta
  })
  const functions = new Map()
  const areas = new Map()
  for (const [id, micros] of self) {
    const { callFrame } = byId.get(id)
    const name = callFrame.functionName || "(anonymous)"
    const key = callFrame.url === "" ? name : `${name} ${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}`
    functions.set(key, (functions.get(key) ?? 0) + micros)
    const area = ["(garbage collector)", "(idle)", "(program)"].includes(name) ? name : areaOf(callFrame.url)
    areas.set(area, (areas.get(area) ?? 0) + micros)
  }
  const table = (title, map, limit) => [
    `| ${title} | self ms | % |`,
    "|---|---:|---:|",
    ...[...map].sort((a, b) => b[1] - a[1]).slice(0, limit)
      .map(([key, micros]) => `| \`${key}\` | ${(micros / 1000).toFixed(0)} | ${((micros / total) * 100).toFixed(1)} |`)
  ].join("\n")
  return `${table("area", areas, 15)}\n\n${table("function", functions, top)}\n\nTotal sampled: ${(total / 1000).toFixed(0)} ms.`
}
