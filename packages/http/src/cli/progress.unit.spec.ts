import { describe, expect, it } from "vitest"
import { progress, progressLine } from "./progress.js"

const recorder = (isTTY: boolean) => {
  const written: Array<string> = []
  return { output: { isTTY, write: (text: string) => written.push(text) }, written }
}

describe("progress", () => {
  it("draws a 20-cell bar with the percentage (rounded down) and the counts", () => {
    expect(progressLine("rebuilding", 10_400, 20_000, "events")).toBe("rebuilding [##########----------] 52% 10400/20000 events")
    expect(progressLine("rebuilding", 0, 20_000, "events")).toBe("rebuilding [--------------------] 0% 0/20000 events")
    expect(progressLine("rebuilding", 19_999, 20_000, "events")).toBe("rebuilding [####################] 99% 19999/20000 events")
    expect(progressLine("rebuilding", 0, 0, "events")).toBe("rebuilding [####################] 100% 0/0 events")
  })

  it("redraws one line in place on a terminal and ends it once", () => {
    const { output, written } = recorder(true)
    const bar = progress(output, "rebuilding", "events")
    for (const done of [5_000, 10_000, 15_000]) bar.update(done, 15_000)
    bar.finish()
    bar.finish()
    expect(written).toEqual([
      "\rrebuilding [#######-------------] 33% 5000/15000 events",
      "\rrebuilding [#############-------] 66% 10000/15000 events",
      "\rrebuilding [####################] 100% 15000/15000 events",
      "\n"
    ])
  })

  it("elsewhere writes the first step, then a line per tenth of the work", () => {
    const { output, written } = recorder(false)
    const bar = progress(output, "rebuilding", "events")
    for (let done = 1_000; done <= 100_000; done += 1_000) bar.update(done, 100_000)
    bar.finish()
    expect(written).toHaveLength(11)
    expect(written.every((line) => line.endsWith("\n") && !line.includes("\r"))).toBe(true)
    expect(written[0]).toBe("rebuilding [--------------------] 1% 1000/100000 events\n")
    expect(written[1]).toBe("rebuilding [##------------------] 10% 10000/100000 events\n")
    expect(written.at(-1)).toBe("rebuilding [####################] 100% 100000/100000 events\n")
  })
})
