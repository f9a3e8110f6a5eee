// The ceiling for Node on this machine: node:http answering fixed bytes, no framework, no storage.
// argv[2]: a JSON file of routes { "<METHOD> <path>": { status, contentType, body (base64) } }.
// POST bodies are read to the end before answering, as any real server must.
import { readFileSync } from "node:fs"
import { createServer } from "node:http"

const routes = new Map(
  Object.entries(JSON.parse(readFileSync(process.argv[2], "utf8"))).map(([key, route]) => [
    key,
    { ...route, body: Buffer.from(route.body, "base64") }
  ])
)

const server = createServer((req, res) => {
  const route = routes.get(`${req.method} ${req.url}`)
  req.resume()
  req.on("end", () => {
    if (route === undefined) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(route.status, { "content-type": route.contentType, "content-length": route.body.length })
    res.end(route.body)
  })
})
server.listen(0, "127.0.0.1", () => process.stderr.write(`bare node:http listening on http://127.0.0.1:${server.address().port}\n`))
process.on("SIGTERM", () => server.close(() => process.exit(0)))
