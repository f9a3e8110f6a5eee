// Child process for `--profile commit`: dealstream's engine alone under the commit-path load, with
// the V8 CPU profiler on for the measured window only (set-up and warm-up are left out).
// argv: <database url> <create-contact|move-stage> <concurrency> <seconds> <profile file>
// It says on stdout when warm, then waits for a line on stdin before profiling (so the parent can
// reset the statement statistics), and prints the rate and the number of commands at the end.
import { writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { closedLoop, forEachConcurrently, runTag } from "./loop.mjs"
import { dealstreamSystem } from "./systems/dealstream.mjs"

const [url, command, concurrencyText, secondsText, out] = process.argv.slice(2)
const concurrency = Number(concurrencyText)
const system = await dealstreamSystem(url, { poolSize: 10 })
const deals = []
if (command === "move-stage") await forEachConcurrently(256, 8, async (i) => deals.push(await system.createDeal(i)))
const mine = Array.from({ length: concurrency }, (_, w) => deals.filter((_, i) => i % concurrency === w))
let n = 0
const op =
  command === "create-contact"
    ? () => system.createContact(runTag, n++)
    : (worker, i) => system.moveStage(mine[worker][i % mine[worker].length])

await closedLoop({ concurrency, seconds: 2, op })
process.stdout.write("warm\n")
await new Promise((resolve) => process.stdin.once("data", resolve))
process.stdin.pause()
const session = new Session()
session.connect()
await session.post("Profiler.enable")
await session.post("Profiler.start")
const result = await closedLoop({ concurrency, seconds: Number(secondsText), op })
const { profile } = await session.post("Profiler.stop")
writeFileSync(out, JSON.stringify(profile))
process.stdout.write(`${JSON.stringify({ rate: result.rate, done: result.done, failed: result.failed })}\n`)
await system.close()
