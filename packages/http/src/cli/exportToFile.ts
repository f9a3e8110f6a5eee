import { createWriteStream } from "node:fs"
import type { HostClient } from "./hostClient.js"
import type { RecordTypeName } from "./importRecords.js"
import { type ProgressOutput, rateProgress } from "./transferProgress.js"

/**
 * `dealstream export`: GET /v1/<type>/export of a running host, as JSON lines or CSV, into a file or
 * stdout, as it comes (never held whole), with progress on stderr. Answers the change feed cursor
 * of the export's state, to follow the feed from (`dealstream events tail --from-cursor`).
 */
export const exportToFile = async (
  host: HostClient,
  options: {
    readonly type: RecordTypeName
    readonly format: "csv" | "jsonl"
    readonly query: URLSearchParams
    /** Null: stdout. */
    readonly output: string | null
  },
  progressOutput: ProgressOutput
): Promise<{ readonly rows: number; readonly cursor: string | null }> => {
  const query = options.query.toString()
  const response = await host.stream(
    `/v1/${options.type}/export${query === "" ? "" : `?${query}`}`,
    options.format === "csv" ? "text/csv" : "application/x-ndjson"
  )
  const sink = options.output === null ? process.stdout : createWriteStream(options.output)
  const progress = rateProgress(progressOutput, "exporting", null, "rows")
  let rows = options.format === "csv" ? -1 : 0
  const reader = response.body!.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      // Records end with a line break (CRLF in CSV); one inside a quoted CSV field is counted too,
      // so the count of a CSV with multi-line fields is a little high, as a progress figure may be.
      for (const byte of value) if (byte === 10) rows++
      if (!sink.write(value)) await new Promise<void>((resolve) => sink.once("drain", () => resolve()))
      progress.update(Math.max(0, rows))
    }
  } finally {
    progress.finish()
    if (sink !== process.stdout) await new Promise<void>((resolve) => sink.end(() => resolve()))
  }
  return { rows: Math.max(0, rows), cursor: response.headers.get("dealstream-feed-cursor") }
}
