import type { OpenApi } from "effect/http-api"

/**
 * A self-contained HTML reference rendered from the OpenAPI document: no scripts, no fonts, no
 * CDN, so /docs works offline and behind strict networks. Schemas are shown as JSON Schema, with
 * `$ref`s turned into links to the schema section.
 */

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

const anchor = (name: string) => `schema-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`

const schemaHtml = (schema: unknown): string =>
  escape(JSON.stringify(schema, null, 2)).replace(
    /&quot;\$ref&quot;: &quot;#\/components\/schemas\/([^&]+)&quot;/g,
    (_, name: string) => `&quot;$ref&quot;: <a href="#${anchor(name)}">${name}</a>`
  )

interface Operation {
  readonly tags?: ReadonlyArray<string>
  readonly summary?: string
  readonly description?: string
  readonly parameters?: ReadonlyArray<{ name: string; in: string; required?: boolean; description?: string; schema?: unknown }>
  readonly requestBody?: { content?: Record<string, { schema?: unknown }> }
  readonly responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>
  readonly security?: ReadonlyArray<Record<string, unknown>>
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const

const operationHtml = (method: string, path: string, op: Operation): string => {
  const params = (op.parameters ?? []).map((p) =>
    `<tr><td><code>${escape(p.name)}</code></td><td>${escape(p.in)}</td><td>${p.required === true ? "yes" : ""}</td>` +
    `<td>${escape(p.description ?? (p.schema as { description?: string } | undefined)?.description ?? "")}</td></tr>`
  ).join("")
  const body = op.requestBody?.content?.["application/json"]?.schema
  const responses = Object.entries(op.responses ?? {}).map(([status, response]) => {
    const schema = response.content?.["application/json"]?.schema
    return `<li><strong>${escape(status)}</strong> ${escape(response.description ?? "")}` +
      (schema === undefined ? "" : `<pre>${schemaHtml(schema)}</pre>`) + "</li>"
  }).join("")
  return `<section class="op" id="${escape(`${method}-${path}`)}">
<h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
${op.description === undefined ? "" : `<p>${escape(op.description)}</p>`}
${(op.security ?? []).length > 0 ? "<p class=\"auth\">Requires <code>Authorization: Bearer &lt;API key&gt;</code>.</p>" : ""}
${params === "" ? "" : `<table><tr><th>parameter</th><th>in</th><th>required</th><th>description</th></tr>${params}</table>`}
${body === undefined ? "" : `<h4>Request body</h4><pre>${schemaHtml(body)}</pre>`}
<h4>Responses</h4><ul>${responses}</ul>
</section>`
}

export const renderDocs = (spec: OpenApi.OpenAPISpec): string => {
  const byTag = new Map<string, Array<string>>()
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const method of METHODS) {
      const op = (item as Record<string, unknown>)[method] as Operation | undefined
      if (op === undefined) continue
      const tag = op.tags?.[0] ?? "other"
      byTag.set(tag, [...(byTag.get(tag) ?? []), operationHtml(method, path, op)])
    }
  }
  const toc = [...byTag.keys()].map((tag) => `<li><a href="#tag-${escape(tag)}">${escape(tag)}</a></li>`).join("")
  const groups = [...byTag.entries()].map(([tag, ops]) => `<h2 id="tag-${escape(tag)}">${escape(tag)}</h2>${ops.join("\n")}`)
  const schemas = Object.entries(spec.components.schemas).map(([name, schema]) =>
    `<section id="${anchor(name)}"><h3>${escape(name)}</h3><pre>${schemaHtml(schema)}</pre></section>`
  )
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(spec.info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:0 auto;padding:1rem 2rem;color:#1d2330}
code,pre{font:13px/1.4 ui-monospace,monospace}pre{background:#f4f6f8;padding:.75rem;overflow:auto;border-radius:4px}
.op{border-top:1px solid #dde2e8;padding:.5rem 0}.method{display:inline-block;min-width:4.5em;color:#fff;border-radius:3px;padding:0 .4em;font-size:.8em;text-align:center}
.get{background:#2f7d32}.post{background:#1565c0}.put{background:#8e24aa}.patch{background:#ef6c00}.delete{background:#c62828}
table{border-collapse:collapse}td,th{border:1px solid #dde2e8;padding:.2rem .5rem;text-align:left;vertical-align:top}.auth{color:#555}
</style></head><body>
<h1>${escape(spec.info.title)} <small>v${escape(spec.info.version)}</small></h1>
${spec.info.description === undefined ? "" : `<p>${escape(spec.info.description)}</p>`}
<p>Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI ${escape(spec.openapi)}).</p>
<ul>${toc}<li><a href="#schemas">schemas</a></li></ul>
${groups.join("\n")}
<h2 id="schemas">Schemas</h2>
${schemas.join("\n")}
</body></html>
`
}
