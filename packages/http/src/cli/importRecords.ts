import { createHash, randomBytes } from "node:crypto"
import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { parse } from "csv-parse/sync"
import { type HostClient, ImportFailed } from "./hostClient.js"
import { csvEscape, rateProgress } from "./transferProgress.js"

/**
 * `dealstream import`: a CSV (header row) or JSON lines file into a running host, through its API.
 *
 * - Columns are fields by their header (`--map "E-mail=email"` renames); a column that is neither a
 *   writable field of the record type nor one of its custom fields stops the import before anything
 *   is written, unless `--custom-fields`, which defines it (as text) and keeps it.
 * - Rows go in batches of 100 (`POST /v1/<type>/batch`; activities, which have no batch, one POST
 *   per row), several in flight. With `--match email` (contacts) or `--match domain` (companies) each
 *   row is an upsert on that key, so a second run of the same file changes nothing.
 * - Every batch is sent under an Idempotency-Key made of the file's content, the options, the run
 *   and the batch's number, and each one answered is noted in a journal beside the file. After a crash or
 *   Ctrl-C, `--resume` skips the batches noted; one applied but not yet noted is answered again by
 *   its key instead of applied twice (the host finishes a batch whose client went away). A batch of
 *   upserts whose host stopped before keeping its answer is sent again, since upserts converge; a
 *   batch of creates is not, so a host killed mid-batch can leave rows of it out (--match avoids
 *   that). A finished import removes its journal.
 * - Rows the API refused go to a report (line, column, message), and the end says how many rows
 *   were created, updated, left unchanged (an upsert that changed nothing) and rejected.
 */

export type RecordTypeName = "contacts" | "companies" | "deals" | "activities"

/** The writable fields' schemas of a record type's create body, as the OpenAPI document gives them. */
const INPUT: Readonly<Record<RecordTypeName, string>> = {
  contacts: "ContactInput",
  companies: "CompanyInput",
  deals: "DealInput",
  activities: "ActivityInput"
}
const OBJECT: Readonly<Record<RecordTypeName, string>> = {
  contacts: "contact",
  companies: "company",
  deals: "deal",
  activities: "activity"
}
const MATCHES: Readonly<Record<RecordTypeName, string | null>> = { contacts: "email", companies: "domain", deals: null, activities: null }

export const BATCH = 100

export interface ImportOptions {
  readonly file: string
  readonly type: RecordTypeName
  readonly format: "csv" | "jsonl"
  /** Header → field. */
  readonly map: ReadonlyMap<string, string>
  readonly customFields: boolean
  readonly match: string | null
  readonly encoding: string
  /** Null: `,` or `;`, whichever the header row has more of. */
  readonly delimiter: string | null
  readonly resume: boolean
  readonly report: string
  readonly concurrency: number
}

export interface ImportSummary {
  readonly rows: number
  readonly created: number
  readonly updated: number
  readonly unchanged: number
  readonly rejected: number
  /**
   * Rows of a batch applied by a run that stopped before its answer was kept (the host answers its
   * key 409 idempotency_conflict): written once, whether created or updated is not known.
   */
  readonly applied: number
  /** Batches answered earlier (a resumed import), whose rows are counted in none of the above. */
  readonly skipped: number
}

interface Row {
  /** Its first line in the file (1 is the header of a CSV). */
  readonly line: number
  readonly fields: Readonly<Record<string, string | unknown>>
}

interface Rejected {
  readonly line: number
  readonly column: string
  readonly message: string
}

/** The file's text, its BOM gone, in the encoding named (`latin1`, `windows-1252`, `utf-16le`, …). */
const textOf = (file: string, encoding: string): string => {
  let decoder: InstanceType<typeof TextDecoder>
  try {
    decoder = new TextDecoder(encoding)
  } catch {
    throw new ImportFailed(
      `--encoding ${JSON.stringify(encoding)} is not an encoding this Node.js knows (utf-8, latin1, windows-1252, utf-16le, …)`
    )
  }
  return decoder.decode(readFileSync(file)).replace(/^\uFEFF/, "")
}

const rowsOf = (text: string, options: ImportOptions): { readonly headers: ReadonlyArray<string>; readonly rows: ReadonlyArray<Row> } => {
  if (options.format === "jsonl") {
    const rows: Array<Row> = []
    const headers = new Set<string>()
    text.split("\n").forEach((line, i) => {
      if (line.trim() === "") return
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch {
        throw new ImportFailed(`line ${i + 1} is not JSON`)
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ImportFailed(`line ${i + 1} is not a JSON object`)
      for (const key of Object.keys(value)) headers.add(key)
      rows.push({ line: i + 1, fields: value as Record<string, unknown> })
    })
    return { headers: [...headers], rows }
  }
  const firstLine = text.slice(0, text.search(/\r?\n|$/))
  const delimiter = options.delimiter ?? (firstLine.split(";").length > firstLine.split(",").length ? ";" : ",")
  let records: ReadonlyArray<{ readonly record: ReadonlyArray<string>; readonly info: { readonly lines: number } }>
  try {
    records = parse(text, { delimiter, info: true, skip_empty_lines: true, trim: false }) as unknown as typeof records
  } catch (error) {
    throw new ImportFailed(`cannot read the CSV: ${(error as Error).message}`)
  }
  const [header, ...body] = records
  if (header === undefined) return { headers: [], rows: [] }
  const headers = header.record.map((name) => name.trim())
  let line = header.info.lines
  const rows = body.map(({ info, record }) => {
    const start = line + 1
    line = info.lines
    return { line: start, fields: Object.fromEntries(headers.map((name, i) => [name, record[i] ?? ""])) }
  })
  return { headers, rows }
}

/** A property's JSON Schema types, `anyOf` with null included. */
const typesOf = (schema: Record<string, any> | undefined): ReadonlyArray<string> =>
  schema === undefined ? [] : schema["anyOf"] !== undefined ? schema["anyOf"].flatMap(typesOf) : [schema["type"]].flat().filter(Boolean)

/** A CSV cell as the field takes it: numbers, booleans, `;`-separated lists; empty is no value. */
const cellValue = (text: unknown, types: ReadonlyArray<string>): unknown => {
  if (typeof text !== "string") return text
  if (text === "") return undefined
  if (types.includes("number") || types.includes("integer")) {
    const n = Number(text.trim())
    return Number.isFinite(n) && text.trim() !== "" ? n : text
  }
  if (types.includes("boolean")) return /^(true|1|yes)$/i.test(text.trim()) ? true : /^(false|0|no)$/i.test(text.trim()) ? false : text
  if (types.includes("array"))
    return text
      .split(";")
      .map((part) => part.trim())
      .filter((part) => part !== "")
  return text
}

const keyOf = (name: string) =>
  name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .replace(/^(?=[0-9])/, "f_")
    .slice(0, 63) || "field"

interface Journal {
  readonly key: string
  /** This import's own, in every batch's Idempotency-Key: a resume sends the same keys, a new run new ones. */
  readonly run: string
  readonly done: Array<number>
  readonly counts: { created: number; updated: number; unchanged: number; rejected: number; applied: number }
}

export const importRecords = async (
  host: HostClient,
  options: ImportOptions,
  output: { readonly isTTY?: boolean; readonly write: (text: string) => unknown }
): Promise<ImportSummary> => {
  if (options.match !== null && MATCHES[options.type] !== options.match) {
    throw new ImportFailed(
      MATCHES[options.type] === null
        ? `--match: ${options.type} have no natural key to match on`
        : `--match for ${options.type} is ${MATCHES[options.type]}, not ${options.match}`
    )
  }
  const text = textOf(options.file, options.encoding)
  const { headers, rows } = rowsOf(text, options)
  const fieldOf = (header: string) => options.map.get(header) ?? header

  // What the record type takes: its standard writable fields, and its custom fields.
  const document = await host.json("GET", "/v1/openapi.json")
  const properties: Record<string, any> = document?.components?.schemas?.[INPUT[options.type]]?.properties ?? {}
  const object = OBJECT[options.type]
  const defined = await host.json("GET", `/v1/custom-fields?object=${object}`)
  const custom = new Map<string, string>((defined?.data ?? []).map((d: Record<string, string>) => [d["key"], d["type"]]))
  const unknown = headers.filter((header) => properties[fieldOf(header)] === undefined && !custom.has(fieldOf(header)))
  if (unknown.length > 0 && !options.customFields) {
    throw new ImportFailed(
      `${unknown.map((h) => JSON.stringify(h)).join(", ")} ${unknown.length === 1 ? "is not a field" : "are not fields"} of ${options.type}: ` +
        `map ${unknown.length === 1 ? "it" : "them"} with --map "Header=field", or keep ${unknown.length === 1 ? "it" : "them"} as custom fields with --custom-fields. Nothing was written.`
    )
  }
  const map = new Map(options.map)
  for (const header of unknown) {
    const key = keyOf(header)
    map.set(header, key)
    if (!custom.has(key)) {
      await host.json("POST", "/v1/custom-fields", { object, key, label: header, type: "text" }, [201, 409])
      custom.set(key, "text")
    }
  }
  const field = (header: string) => map.get(header) ?? header
  const headerOf = new Map(headers.map((header) => [field(header), header]))
  const typeOf = (name: string) =>
    custom.has(name) ? [custom.get(name) === "number" ? "number" : custom.get(name)!] : typesOf(properties[name])

  const dataOf = (row: Row) =>
    Object.fromEntries(
      Object.entries(row.fields).flatMap(([header, raw]) => {
        const name = field(header)
        const value = cellValue(raw, typeOf(name))
        return value === undefined ? [] : [[name, value]]
      })
    )

  // The journal: which batches of this very import (same content, same options) were answered.
  const importKey = createHash("sha256")
    .update(text)
    .update(JSON.stringify([options.type, [...map], options.match, options.format]))
    .digest("hex")
    .slice(0, 24)
  const journalFile = `${options.file}.dealstream-import`
  let journal: Journal = {
    key: importKey,
    run: randomBytes(6).toString("hex"),
    done: [],
    counts: { created: 0, updated: 0, unchanged: 0, rejected: 0, applied: 0 }
  }
  if (existsSync(journalFile)) {
    const kept = JSON.parse(readFileSync(journalFile, "utf8")) as Journal
    if (!options.resume) {
      throw new ImportFailed(
        `an import of ${options.file} did not finish (${journalFile}): add --resume to go on with it, or delete that file to start over`
      )
    }
    if (kept.key !== importKey)
      throw new ImportFailed(`${journalFile} is of another import (the file or the options changed): delete it to start over`)
    journal = kept
  }
  const done = new Set(journal.done)
  // Written beside it and renamed over it: a crash (or a reader) mid-write never finds half a journal.
  const saveJournal = () => {
    writeFileSync(`${journalFile}.next`, JSON.stringify({ ...journal, done: [...done] }))
    renameSync(`${journalFile}.next`, journalFile)
  }

  const batches: Array<ReadonlyArray<Row>> = []
  for (let i = 0; i < rows.length; i += BATCH) batches.push(rows.slice(i, i + BATCH))
  const started = new Date().toISOString()
  // The report grows batch by batch, so a crash keeps what was refused before it.
  if (!options.resume || !existsSync(options.report)) writeFileSync(options.report, "line,column,message\r\n")
  const reportRejected = (rows: ReadonlyArray<Rejected>) => {
    if (rows.length === 0) return
    appendFileSync(options.report, rows.map((r) => `${r.line},${csvEscape(r.column)},${csvEscape(r.message)}\r\n`).join(""))
  }
  const counts = journal.counts
  const progress = rateProgress(output, "importing", rows.length, "rows")
  let handled = batches.filter((_, i) => done.has(i)).reduce((n, batch) => n + batch.length, 0)
  progress.update(handled)

  const rejectFrom = (rejected: Array<Rejected>, row: Row, error: Record<string, any>) => {
    const details: ReadonlyArray<{ path: string; message: string }> = error?.["details"] ?? []
    if (details.length === 0) rejected.push({ line: row.line, column: "", message: String(error?.["message"] ?? "refused") })
    for (const detail of details) {
      const name = /^[^.[\]]+/.exec(detail.path.replace(/^operations\[\d+\]\./, "").replace(/^data\./, ""))?.[0] ?? detail.path
      rejected.push({ line: row.line, column: headerOf.get(name) ?? name, message: detail.message })
    }
    counts.rejected++
  }
  const tally = (rejected: Array<Rejected>, status: number, body: Record<string, any> | undefined, row: Row) => {
    if (status === 201) counts.created++
    else if (status === 200) {
      if (typeof body?.["updated_at"] === "string" && body["updated_at"] < started) counts.unchanged++
      else counts.updated++
    } else rejectFrom(rejected, row, body?.["error"] ?? body)
  }

  const sendBatch = async (index: number) => {
    const batch = batches[index]!
    const key = `import-${importKey}-${journal.run}-${index}`
    const rejected: Array<Rejected> = []
    if (options.type === "activities") {
      await Promise.all(
        batch.map(async (row) => {
          const answer = await host.request("POST", `/v1/${options.type}`, dataOf(row), `${key}-${row.line}`)
          if (answer.status === 409 && answer.body?.error?.code === "idempotency_conflict") counts.applied++
          else tally(rejected, answer.status, answer.body, row)
        })
      )
    } else {
      const operations = batch.map((row) => {
        const data = dataOf(row)
        const matchValue = options.match === null ? undefined : data[options.match]
        return typeof matchValue === "string" ? { op: "upsert", match: { [options.match!]: matchValue }, data } : { op: "create", data }
      })
      let answer = await host.request("POST", `/v1/${options.type}/batch`, { operations }, key)
      if (answer.status === 409 && answer.body?.error?.code === "idempotency_conflict") {
        // Applied by the run that stopped, its answer lost with it: a host that stopped mid-batch
        // may have applied part of it. Upserts converge, so a batch of them is sent again under a
        // key of its own (what was applied answers unchanged); creates are not sent twice.
        if (!operations.every((operation) => operation.op === "upsert")) {
          counts.applied += batch.length
          return finished(index, batch, rejected)
        }
        answer = await host.request("POST", `/v1/${options.type}/batch`, { operations }, `${key}-again`)
      }
      if (answer.status !== 200) {
        throw new ImportFailed(
          `batch ${index + 1} (lines ${batch[0]!.line}–${batch[batch.length - 1]!.line}) was refused: ${answer.status} ${JSON.stringify(answer.body)}`
        )
      }
      for (const result of answer.body["results"] as ReadonlyArray<{ index: number; status: number; data?: any; error?: any }>) {
        tally(rejected, result.status, result.data ?? { error: result.error }, batch[result.index]!)
      }
    }
    finished(index, batch, rejected)
  }

  const finished = (index: number, batch: ReadonlyArray<Row>, rejected: Array<Rejected>) => {
    reportRejected(rejected.sort((a, b) => a.line - b.line))
    done.add(index)
    saveJournal()
    handled += batch.length
    progress.update(handled)
  }

  const pending = batches.map((_, i) => i).filter((i) => !done.has(i))
  const skipped = batches.length - pending.length
  const workers = Array.from({ length: Math.max(1, options.concurrency) }, async () => {
    for (let next = pending.shift(); next !== undefined; next = pending.shift()) await sendBatch(next)
  })
  try {
    await Promise.all(workers)
  } finally {
    progress.finish()
  }
  if (counts.rejected === 0) rmSync(options.report, { force: true })
  rmSync(journalFile, { force: true })
  return { rows: rows.length, ...counts, skipped }
}

export const summaryLine = (summary: ImportSummary, report: string) =>
  `imported ${summary.rows} rows: ${summary.created} created, ${summary.updated} updated, ${summary.unchanged} unchanged, ` +
  `${summary.rejected} rejected${summary.rejected > 0 ? ` (see ${report})` : ""}` +
  (summary.applied > 0 ? `; ${summary.applied} applied by the run that stopped, before its answer was kept` : "")
