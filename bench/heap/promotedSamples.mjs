// Preloaded into a host (`--import bench/heap/promotedSamples.mjs`): V8's sampling heap profiler,
// counting only objects that outlived the young generation and then died in a mark-compact: the
// garbage that makes the export's RSS grow. After HEAP_SAMPLE_MS (default 20 s) it writes
// /tmp/promoted-<pid>.heapprofile; `node bench/heap/promotedTop.mjs <file>` sums it by allocation site.
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"

const session = new Session()
session.connect()
await session.post("HeapProfiler.enable")
await session.post("HeapProfiler.startSampling", {
  samplingInterval: 8192,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: false
})
setTimeout(
  async () => {
    const { profile } = await session.post("HeapProfiler.stopSampling")
    writeFileSync(`/tmp/promoted-${process.pid}.heapprofile`, JSON.stringify(profile))
  },
  Number(process.env.HEAP_SAMPLE_MS ?? 20_000)
).unref()
