// Child process: autocannon runs one after another, each summary as one JSON line on stdout.
// argv[2]: a JSON array of { url, method, path, headers, body?, uniqueEmail?, connections, duration }.
// With `uniqueEmail`, every request's body gets an email no other request used (POST contact).
import autocannon from "autocannon"

const tag = `${process.pid}${Date.now().toString(36)}`
let n = 0

const run = async (spec) => {
  const request = {
    method: spec.method,
    path: spec.path,
    headers: spec.headers,
    ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
    ...(spec.uniqueEmail
      ? { setupRequest: (req) => ({ ...req, body: JSON.stringify({ ...spec.body, email: `ac.${tag}.${n++}@bench.example` }) }) }
      : {})
  }
  const result = await autocannon({ url: spec.url, connections: spec.connections, duration: spec.duration, requests: [request] })
  return {
    rps: result["2xx"] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    duration: result.duration
  }
}

for (const spec of JSON.parse(process.argv[2])) process.stdout.write(`${JSON.stringify(await run(spec))}\n`)
