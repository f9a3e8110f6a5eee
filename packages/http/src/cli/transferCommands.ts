import { resolve } from "node:path"
import { hostClient, ImportFailed } from "./hostClient.js"
import { importRecords, type RecordTypeName, summaryLine } from "./importRecords.js"
import { exportToFile } from "./exportToFile.js"
import { DEFAULT_IMPORT_CONCURRENCY } from "./transferUsage.js"

// `dealstream import` and `dealstream export`: through the HTTP API of a running host (--url,
// DEALSTREAM_URL; --key, DEALSTREAM_API_KEY), so they work with any storage and any number of hosts,
// and every rule of the API (validation, upserts, webhooks, the feed) applies to what they write.

const TYPES: ReadonlyArray<RecordTypeName> = ["contacts", "companies", "deals", "activities"]

const typeOf = (value: string | undefined): RecordTypeName => {
  if (value === undefined) throw new ImportFailed("--type is required: contacts, companies, deals or activities")
  if (!TYPES.includes(value as RecordTypeName))
    throw new ImportFailed(`--type must be contacts, companies, deals or activities, got ${JSON.stringify(value)}`)
  return value as RecordTypeName
}

const hostOf = (options: Readonly<Record<string, string>>) => {
  const key = options["key"] ?? process.env["DEALSTREAM_API_KEY"]
  if (key === undefined || key === "") throw new ImportFailed("an API key is needed: --key or DEALSTREAM_API_KEY")
  return hostClient(options["url"] ?? process.env["DEALSTREAM_URL"] ?? "http://127.0.0.1:3000", key)
}

const mapOf = (text: string | undefined): ReadonlyMap<string, string> => {
  const map = new Map<string, string>()
  for (const pair of (text ?? "").split(",").filter((part) => part.trim() !== "")) {
    const eq = pair.lastIndexOf("=")
    if (eq <= 0) throw new ImportFailed(`--map takes Header=field pairs separated by commas, got ${JSON.stringify(pair)}`)
    map.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
  }
  return map
}

export const IMPORT_OPTIONS = {
  values: ["type", "url", "key", "format", "map", "match", "encoding", "delimiter", "report", "concurrency"],
  switches: ["custom-fields", "resume"]
}
export const EXPORT_OPTIONS = { values: ["type", "url", "key", "format", "output", "filter", "query"] }

export const importCommand = async (positional: ReadonlyArray<string>, options: Readonly<Record<string, string>>) => {
  if (positional.length !== 1) throw new ImportFailed("import needs one file: dealstream import <file> --type <records>")
  const file = resolve(positional[0]!)
  const format = options["format"] ?? (/\.(jsonl|ndjson)$/i.test(file) ? "jsonl" : "csv")
  if (format !== "csv" && format !== "jsonl") throw new ImportFailed(`--format must be csv or jsonl, got ${JSON.stringify(format)}`)
  const concurrency = Number(options["concurrency"] ?? DEFAULT_IMPORT_CONCURRENCY)
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new ImportFailed("--concurrency must be a whole number from 1 to 64")
  const delimiter = options["delimiter"] ?? null
  if (delimiter !== null && delimiter.length !== 1) throw new ImportFailed("--delimiter must be one character")
  const report = resolve(options["report"] ?? `${file}.rejected.csv`)
  const summary = await importRecords(
    hostOf(options),
    {
      file,
      type: typeOf(options["type"]),
      format,
      map: mapOf(options["map"]),
      customFields: options["custom-fields"] !== undefined,
      match: options["match"] ?? null,
      encoding: options["encoding"] ?? "utf-8",
      delimiter,
      resume: options["resume"] !== undefined,
      report,
      concurrency
    },
    process.stderr
  )
  process.stderr.write(`${summaryLine(summary, report)}\n`)
}

export const exportCommand = async (positional: ReadonlyArray<string>, options: Readonly<Record<string, string>>) => {
  if (positional.length > 0) throw new ImportFailed(`unexpected argument ${JSON.stringify(positional[0])}`)
  const format = options["format"] ?? "jsonl"
  if (format !== "csv" && format !== "jsonl") throw new ImportFailed(`--format must be jsonl or csv, got ${JSON.stringify(format)}`)
  const query = new URLSearchParams(options["query"] ?? "")
  if (options["filter"] !== undefined) query.set("filter", options["filter"])
  const { cursor, rows } = await exportToFile(
    hostOf(options),
    { type: typeOf(options["type"]), format, query, output: options["output"] ?? null },
    process.stderr
  )
  process.stderr.write(`exported ${rows} rows; change feed cursor: ${cursor ?? "(none: the workspace has no event yet)"}\n`)
}
