import { existsSync } from "node:fs"
import { type Browser, type BrowserContext, chromium, type Page, type Response } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { type Host, KEY_A, startHost } from "./client.js"

// /docs in a real browser: Debian's Chromium, headless, driven by playwright-core (which downloads
// no browser of its own), against a real host on 127.0.0.1. The page must load and work with
// nothing fetched from anywhere but the host; "try it" must reach the host with the key entered
// in the page and show its answer.

const CHROMIUM = "/usr/bin/chromium"
const hasChromium = existsSync(CHROMIUM)
const title = hasChromium
  ? "/docs in Chromium"
  : `/docs in Chromium: SKIPPED, ${CHROMIUM} is not installed (apt-get install chromium; .ci/run installs it when missing)`

// Said where the run's output shows it, not only in the name of the skipped block.
if (!hasChromium) console.warn(title)

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

interface Operation {
  readonly tags?: ReadonlyArray<string>
}
interface Document {
  readonly tags: ReadonlyArray<{ readonly name: string }>
  readonly paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>
}

/** `METHOD /path` of every operation of the document, by its first tag. */
const operationsByTag = (document: Document): Map<string, Array<string>> => {
  const byTag = new Map<string, Array<string>>()
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method]
      if (operation === undefined) continue
      const tag = operation.tags?.[0] ?? "(untagged)"
      byTag.set(tag, [...(byTag.get(tag) ?? []), `${method.toUpperCase()} ${path}`])
    }
  }
  return byTag
}

/** The host's JSON log lines, kept from the test's output (the host logs to stdout). */
const logLines: Array<Record<string, unknown>> = []

describe.skipIf(!hasChromium)(title, () => {
  let host: Host
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let document: Document
  /** Every URL the browser requested for the page, in order. */
  const requested: Array<string> = []
  let contactId: string
  let loaded: Response | null

  /** What was requested from anywhere but the host (data: and blob: URLs are the page's own). */
  const offHost = () => requested.filter((url) => !url.startsWith("data:") && !url.startsWith("blob:") && new URL(url).origin !== host.url)

  beforeAll(async () => {
    const write = process.stdout.write.bind(process.stdout)
    vi.spyOn(process.stdout, "write").mockImplementation(((chunk: string | Uint8Array, ...rest: Array<never>) => {
      const text = String(chunk)
      if (!text.startsWith('{"time":')) return write(chunk, ...rest)
      for (const line of text.split("\n")) if (line !== "") logLines.push(JSON.parse(line))
      return true
    }) as typeof process.stdout.write)
    host = await startHost({ log: true })
    document = JSON.parse((await host.call("GET", "/v1/openapi.json", { key: null })).text)
    // A record only the host knows of, for "try it" to bring back.
    const created = await host.call("POST", "/v1/contacts", {
      body: { first_name: "Grace", last_name: "Hopper", email: "grace@docs.test" }
    })
    expect(created.status).toBe(201)
    contactId = created.body.id
    // launch() gives a fresh, temporary user data dir each time.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        // No name resolves: a request for anything but 127.0.0.1 fails at once instead of reaching
        // the Internet (or hanging where there is none). It is recorded all the same.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
      ]
    })
    context = await browser.newContext()
    // The context's requests: the page's, its workers' and any popup's.
    context.on("request", (request) => {
      requested.push(request.url())
    })
    page = await context.newPage()
    page.setDefaultTimeout(60_000)
    loaded = await page.goto(`${host.url}/docs`)
    expect(loaded?.status()).toBe(200)
  })

  afterAll(async () => {
    await browser?.close()
    await host?.close()
    vi.restoreAllMocks()
  })

  /** Scalar has rendered the reference once every tag's list of operations is there. */
  const rendered = async () => {
    for (const { name } of document.tags) await page.getByRole("list", { name: `${name} endpoints`, exact: true }).waitFor()
  }

  it("loads Scalar's reference with no request leaving the host", { timeout: 120_000 }, async () => {
    expect(requested[0]).toBe(`${host.url}/docs`)
    // What the page loads (scripts, styles) before it renders, then what rendering asks for (fonts).
    expect(offHost()).toEqual([])
    await rendered()
    expect(await page.title()).toBe("dealstream API")
    await page.getByRole("heading", { name: "dealstream API", level: 1 }).waitFor()
    expect(offHost()).toEqual([])
    // Scalar's developer tools are not offered: their Share uploads the document to api.scalar.com.
    expect(await page.getByRole("button", { name: "Share" }).count()).toBe(0)
    // The page is answered as any route of the host: a request id, and a line in the request log.
    const requestId = await loaded!.headerValue("x-request-id")
    expect(requestId).toMatch(/^req_/)
    expect(logLines.filter((line) => line["request_id"] === requestId)).toEqual([
      expect.objectContaining({ method: "GET", path: "/docs", status: 200, workspace_id: null })
    ])
  })

  it("lists every operation of the OpenAPI document, under its tag", { timeout: 120_000 }, async () => {
    await rendered()
    const expected = operationsByTag(document)
    const shown = new Map<string, Array<string>>()
    for (const { name } of document.tags) {
      const links = page.getByRole("list", { name: `${name} endpoints`, exact: true }).locator("a.endpoint")
      const methods = await links.locator(".endpoint-method").allTextContents()
      const paths = await links.locator(".endpoint-path").allTextContents()
      expect(methods.length).toBe(paths.length)
      shown.set(
        name,
        methods.map((method, i) => `${method.trim().toUpperCase()} ${paths[i]!.trim()}`)
      )
    }
    const sorted = (byTag: Map<string, Array<string>>) =>
      Object.fromEntries([...byTag].map(([tag, operations]) => [tag, [...operations].sort()]))
    // Each tag's list is its operations, and no operation is left out (an untagged one, or one
    // under a tag the document does not declare, would be a key of `expected` only).
    expect(sorted(shown)).toEqual(sorted(expected))
  })

  it("try it: sends GET /v1/contacts with the key entered in the page and shows the host's answer", { timeout: 120_000 }, async () => {
    await page.getByRole("textbox", { name: "Bearer Token" }).filter({ visible: true }).fill(KEY_A)
    await page.getByRole("button", { name: "Test Request (get /v1/contacts)" }).click()
    const answered = page.waitForResponse((response) => new URL(response.url()).pathname === "/v1/contacts")
    await page.getByRole("button", { name: /^Send get request to / }).click()
    const response = await answered
    expect(response.request().method()).toBe("GET")
    expect(await response.request().headerValue("authorization")).toBe(`Bearer ${KEY_A}`)
    expect(response.status()).toBe(200)

    // The page shows the host's answer: its status and the record only the host knew of.
    const shown = page.getByRole("region", { name: "Response" })
    await shown.getByText("200 OK").waitFor()
    await shown.getByText(`"${contactId}"`).waitFor()

    // The host saw the request arrive with workspace A's key: its log line names the workspace.
    const requestId = await response.headerValue("x-request-id")
    expect(logLines.filter((line) => line["request_id"] === requestId)).toEqual([
      expect.objectContaining({ method: "GET", path: "/v1/contacts", status: 200, workspace_id: "ws_a" })
    ])
    expect(offHost()).toEqual([])
  })
})
