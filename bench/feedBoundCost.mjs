// What the feed bound's rule (storage-pg's boundOverGiven) costs as running transactions grow: a
// snapshot listing n running transactions, each holding its id lock, none of them marked, and 40
// feed marks of other backends, given to the rule as a lock table. That is the bound's worst case:
// it must look at every running transaction. Uses the built packages (npm run build).
//
//   scripts/with-node node bench/feedBoundCost.mjs [postgres-url] [n …]
import postgres from "postgres"
import { boundOverGiven } from "../packages/storage-pg/dist/feedBound.js"

const [url = "postgres://postgres@127.0.0.1:5432/test", ...counts] = process.argv.slice(2)
const sql = postgres(url, { max: 1, onnotice: () => {} })
const text = boundOverGiven()

for (const n of (counts.length > 0 ? counts : ["3", "30", "300", "1000", "3000"]).map(Number)) {
  const xs = Array.from({ length: n }, (_, i) => 100_000 + i)
  const snapshot = `${xs[0]}:${xs[n - 1] + 1}:${xs.join(",")}`
  const locks = xs.map((x, i) => ({ locktype: "transactionid", pid: 10_000 + i, virtualtransaction: `${i}/1`, transactionid: String(x) }))
  for (let i = 0; i < 40; i++) locks.push({ locktype: "advisory", pid: 50_000 + i, virtualtransaction: `${50_000 + i}/1` })
  const params = [snapshot, JSON.stringify(locks)]
  const [row] = await sql.unsafe(text, params)
  if (row.below !== String(xs[n - 1] + 1) || row.ended) throw new Error(`unexpected bound ${JSON.stringify(row)}`)
  const times = []
  for (let i = 0; i < 7; i++) {
    const start = performance.now()
    await sql.unsafe(text, params)
    times.push(performance.now() - start)
  }
  times.sort((a, b) => a - b)
  console.log(
    `${n} running, ${locks.length} lock rows: median ${times[3].toFixed(2)} ms (min ${times[0].toFixed(2)}, max ${times[6].toFixed(2)})`
  )
}
await sql.end()
