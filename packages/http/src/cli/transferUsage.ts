/**
 * Batches an import keeps in flight unless told: as many as the bench's batch endpoint clients, so
 * that group commit gathers as many creates a transaction for the CLI as for them (at 4 the CLI
 * reached about 0.65x their rate in the full import bench).
 */
export const DEFAULT_IMPORT_CONCURRENCY = 8

/** The help of `dealstream import` and `dealstream export` (transferCommands.ts). */
export const TRANSFER_USAGE = `import options (dealstream import <file> --type <records> [options]):
  --type <records>      contacts, companies, deals or activities (required)
  --url <url>           DEALSTREAM_URL         the host (default http://127.0.0.1:3000)
  --key <key>           DEALSTREAM_API_KEY     an API key of the workspace to import into
  --format csv|jsonl    (default: jsonl for .jsonl and .ndjson files, else csv with a header row)
  --map <list>          "E-mail=email,Firma=company_name": header to field (default: the header)
  --custom-fields       keep columns that are no field as custom fields (text), defining them;
                        without it such a column stops the import before anything is written
  --match email|domain  upsert contacts by email, companies by domain: a second run changes nothing
  --encoding <name>     the file's encoding (default utf-8; latin1, windows-1252, utf-16le, …)
  --delimiter <char>    (default: , or ; whichever the header row has more of)
  --resume              go on with an import that stopped (its journal is <file>.dealstream-import)
  --report <file>       rejected rows: line, column, message (default <file>.rejected.csv)
  --concurrency <n>     batches of 100 rows in flight at once (default ${DEFAULT_IMPORT_CONCURRENCY})

export options (dealstream export --type <records> [options]):
  --type <records>      contacts, companies, deals or activities (required)
  --url, --key          as for import
  --format jsonl|csv    (default jsonl)
  --output <file>       (default stdout)
  --filter <json>       the list's filter (API.md, Filter)
  --query <params>      more of the list's parameters, as a query string: "company_id=comp_…"
  The change feed cursor of the export's state goes to stderr: follow the changes since with
  GET /v1/events?after=<cursor>.`
