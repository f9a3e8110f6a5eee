import { startServer } from "@dealstream/http"

/**
 * The whole HTTP host, started from code: memory storage (nothing survives it; `{ postgres: url }`
 * or `{ embedded: dataDir }` keep data), a port the system picks, one workspace's API key, no
 * request log on stdout. `close()` lets requests in flight finish, then releases the storage.
 */
export const startCrm = async () => {
  const server = await startServer({ port: 0, host: "127.0.0.1", storage: "memory", apiKeys: "acme:example-key-0123456789", log: false })
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: "Bearer example-key-0123456789", ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, body: (await response.json()) as Record<string, any> }
  }
  return { url: server.url, call, close: server.close }
}
