import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { run } from "./cli.js"
import { type Answer, hostFor, KEY_A, STORAGES } from "./client.js"

// `dealstream import` and `dealstream export` (issue 34, items 1 and 3), the built CLI against a
// real host on both storages: messy CSV (quotes, line breaks in fields, a BOM, semicolons,
// Latin-1), a second run that changes nothing, the rejected rows' report, a crash mid-import and
// its resume, the progress output, and an export followed by the feed.

const dir = mkdtempSync(join(tmpdir(), "dealstream-import-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name)
  writeFileSync(path, content)
  return path
}

const cli = async (args: ReadonlyArray<string>, url: string) => {
  const done = run(args, { DEALSTREAM_URL: url, DEALSTREAM_API_KEY: KEY_A })
  const code = await done.exit
  return { code, stdout: done.stdout(), stderr: done.stderr() }
}

const listAll = async (host: { call: (m: string, p: string) => Promise<Answer> }, path: string) => {
  const all: Array<Record<string, any>> = []
  for (let cursor: string | null = null; ; ) {
    const sep = path.includes("?") ? "&" : "?"
    const page: Answer = await host.call("GET", `${path}${sep}limit=100${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
    expect(page.status, page.text).toBe(200)
    all.push(...page.body.data)
    cursor = page.body.next_cursor
    if (cursor === null) return all
  }
}

// Each test starts several Node processes (the CLI), which under a loaded machine take seconds each.
const SLOW = { timeout: 120_000 }

for (const storage of STORAGES) {
  describe(`dealstream import and export on ${storage} storage`, SLOW, () => {
    const host = hostFor(storage)

    it("reads messy CSV: a BOM, semicolons, quotes and line breaks in fields, Latin-1; a second run changes nothing", async () => {
      const rows = [
        "E-Mail;Vorname;Nachname;Titel",
        'juergen@example.com;Jürgen;Müller;"Leiter; Einkauf"',
        'ana@example.com;"Ana ""the"" Ö";Nuñez;"first line',
        'second line"',
        "bo@example.com;Bo;;"
      ].join("\r\n")
      const path = file(`latin1-${storage}.csv`, Buffer.from(rows, "latin1"))
      const map = ["--map", "E-Mail=email,Vorname=first_name,Nachname=last_name,Titel=title"]
      const args = ["import", path, "--type", "contacts", "--match", "email", "--encoding", "latin1", ...map]
      const first = await cli(args, host.url)
      expect(first.code, first.stderr).toBe(0)
      expect(first.stderr).toContain("imported 3 rows: 3 created, 0 updated, 0 unchanged, 0 rejected")
      const contacts = await listAll(host, "/v1/contacts")
      const byEmail = new Map(contacts.map((c) => [c["email"], c]))
      expect(byEmail.get("juergen@example.com")).toMatchObject({ first_name: "Jürgen", last_name: "Müller", title: "Leiter; Einkauf" })
      expect(byEmail.get("ana@example.com")).toMatchObject({ first_name: 'Ana "the" Ö', title: "first line\r\nsecond line" })
      expect(byEmail.get("bo@example.com")).toMatchObject({ first_name: "Bo", last_name: null })
      const again = await cli(args, host.url)
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).toContain("imported 3 rows: 0 created, 0 updated, 3 unchanged, 0 rejected")
      expect((await listAll(host, "/v1/contacts")).length).toBe(contacts.length)

      // A UTF-8 file with a BOM and commas reads the same way, without --encoding.
      const bom = file(`bom-${storage}.csv`, `\uFEFFemail,first_name\r\ncarla@example.com,Carla\r\n`)
      const withBom = await cli(["import", bom, "--type", "contacts", "--match", "email"], host.url)
      expect(withBom.code, withBom.stderr).toBe(0)
      expect(withBom.stderr).toContain("1 created")
    })

    it("refuses unknown columns before writing, keeps them as custom fields when told, and reports rejected rows", async () => {
      const path = file(`unknown-${storage}.csv`, "name,domain,Branche\r\nOne GmbH,one-import.example,Bau\r\nTwo,not a domain!,Handel\r\n")
      const before = (await listAll(host, "/v1/companies")).length
      const refused = await cli(["import", path, "--type", "companies"], host.url)
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain('"Branche" is not a field of companies')
      expect((await listAll(host, "/v1/companies")).length).toBe(before)

      const report = join(dir, `rejected-${storage}.csv`)
      const kept = await cli(["import", path, "--type", "companies", "--custom-fields", "--report", report], host.url)
      expect(kept.code, kept.stderr).toBe(0)
      expect(kept.stderr).toContain("imported 2 rows: 1 created, 0 updated, 0 unchanged, 1 rejected")
      const lines = readFileSync(report, "utf8").trim().split("\r\n")
      expect(lines[0]).toBe("line,column,message")
      expect(lines[1]).toMatch(/^3,domain,/)
      const company = (await listAll(host, "/v1/companies")).find((c) => c["domain"] === "one-import.example")
      expect(company?.["branche"]).toBe("Bau")
    })

    it("resumes an import stopped part-way, applying no batch twice, and prints plain progress lines off a terminal", async () => {
      const count = 1_000
      const rows = Array.from({ length: count }, (_, i) => `resume-${storage}-${i}@example.com,R${i}`)
      const path = file(`resume-${storage}.csv`, `email,first_name\n${rows.join("\n")}\n`)
      // The crash: the host stops answering after a while, as a dead host or Ctrl-C leaves it; here
      // the import runs against a host that closes once 2 batches are in.
      const partial = run(["import", path, "--type", "contacts", "--concurrency", "1"], {
        DEALSTREAM_URL: host.url,
        DEALSTREAM_API_KEY: KEY_A
      })
      await waitForText(partial, /importing \[/)
      for (;;) {
        if (existsSync(`${path}.dealstream-import`) && JSON.parse(readFileSync(`${path}.dealstream-import`, "utf8")).done.length >= 2) break
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      partial.child.kill("SIGKILL")
      await partial.exit
      const ours = async () => (await listAll(host, "/v1/contacts")).filter((c) => String(c["email"]).startsWith(`resume-${storage}-`))
      const applied = (await ours()).length
      expect(applied).toBeGreaterThanOrEqual(200)
      expect(applied).toBeLessThan(count)

      const without = await cli(["import", path, "--type", "contacts"], host.url)
      expect(without.code).toBe(1)
      expect(without.stderr).toContain("--resume")

      const resumed = await cli(["import", path, "--type", "contacts", "--resume"], host.url)
      expect(resumed.code, resumed.stderr).toBe(0)
      expect(resumed.stderr).toMatch(/importing \[#+-*\] \d+% \d+\/1000 rows, \d+ rows\/s/)
      expect(resumed.stderr).toMatch(/imported 1000 rows: \d+ created/)
      const all = await ours()
      expect(all.length).toBe(count)
      expect(new Set(all.map((c) => c["email"])).size).toBe(count)
      expect(existsSync(`${path}.dealstream-import`)).toBe(false)
    })

    it("sends again on resume a batch of upserts the host applied only in part, and every row ends up once", async () => {
      const count = 1_000
      const emailOf = (i: number) => `partial-${storage}-${i}@example.com`
      const rows = Array.from({ length: count }, (_, i) => `${emailOf(i)},P${i}`)
      const path = file(`partial-${storage}.csv`, `email,first_name\n${rows.join("\n")}\n`)
      const args = ["import", path, "--type", "contacts", "--match", "email", "--concurrency", "1"]
      const partial = run(args, { DEALSTREAM_URL: host.url, DEALSTREAM_API_KEY: KEY_A })
      const journalOf = () =>
        JSON.parse(readFileSync(`${path}.dealstream-import`, "utf8")) as { key: string; run: string; done: Array<number> }
      for (;;) {
        if (existsSync(`${path}.dealstream-import`) && journalOf().done.length >= 1) break
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      partial.child.kill("SIGKILL")
      await partial.exit
      const journal = journalOf()
      expect(journal.done).not.toContain(9)
      // The last batch's key, taken by 10 of its rows only: as a host that stopped part-way leaves
      // it, the resume's send of the whole batch is answered 409 idempotency_conflict.
      const operations = Array.from({ length: 10 }, (_, i) => 900 + i).map((i) => ({
        op: "upsert",
        match: { email: emailOf(i) },
        data: { email: emailOf(i), first_name: `P${i}` }
      }))
      const taken = await host.call("POST", "/v1/contacts/batch", {
        body: { operations },
        headers: { "idempotency-key": `import-${journal.key}-${journal.run}-9` }
      })
      expect(taken.status, taken.text).toBe(200)

      const resumed = await cli([...args, "--resume"], host.url)
      expect(resumed.code, resumed.stderr).toBe(0)
      expect(resumed.stderr).toMatch(/imported 1000 rows: \d+ created, 0 updated, \d+ unchanged, 0 rejected\n/)
      const ours = (await listAll(host, "/v1/contacts")).filter((c) => String(c["email"]).startsWith(`partial-${storage}-`))
      expect(ours.length).toBe(count)
      expect(new Set(ours.map((c) => c["email"])).size).toBe(count)
    })

    it("exports as JSON lines or CSV to a file, and says the feed cursor to follow", async () => {
      const output = join(dir, `export-${storage}.jsonl`)
      const done = await cli(["export", "--type", "contacts", "--output", output], host.url)
      expect(done.code, done.stderr).toBe(0)
      const exported = readFileSync(output, "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
      expect(exported).toEqual(await listAll(host, "/v1/contacts"))
      const cursor = /change feed cursor: (\S+)/.exec(done.stderr)?.[1]
      expect(cursor).toBeDefined()
      const after = await host.call("GET", `/v1/events?after=${encodeURIComponent(cursor!)}`)
      expect(after.status, after.text).toBe(200)
      expect(after.body.data).toEqual([])
      const csv = await cli(["export", "--type", "companies", "--format", "csv"], host.url)
      expect(csv.code, csv.stderr).toBe(0)
      expect(csv.stdout.split("\r\n")[0]).toMatch(/^id,name,domain,/)
    })
  })
}

const waitForText = async (cli: ReturnType<typeof run>, pattern: RegExp) => {
  for (;;) {
    if (pattern.test(cli.stderr())) return
    if (cli.child.exitCode !== null) throw new Error(`exited: ${cli.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
