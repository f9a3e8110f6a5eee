// Item 5: latency of list pages and searches through the host, on PostgreSQL seeded with many
// contacts and deals by the fast path (bench/lib/seed.mjs), after checking the seeded data reads
// back through the engine as the engine would have written it.
import postgres from "postgres"
import { request, startHost, WORKSPACE } from "../lib/processes.mjs"
import { seededContact, SOURCES } from "../lib/seed.mjs"
import { seededWorkspace } from "../lib/seededWorkspace.mjs"
import { quantile } from "../lib/stats.mjs"

const SCENARIO = "queries at scale (PostgreSQL)"

const q = (params) => new URLSearchParams(params).toString()

/** Checks through the host that the seeded records are there and queries find what they should. */
const verifyThroughHost = async ({ base, url, contacts, deals, baseMs, pipeline }) => {
  const sql = postgres(url, { max: 1 })
  const [{ n: contactRows }] = await sql`SELECT count(*)::int AS n FROM ds_contacts WHERE workspace_id = ${WORKSPACE}`
  const [{ n: dealRows }] = await sql`SELECT count(*)::int AS n FROM ds_deals WHERE workspace_id = ${WORKSPACE}`
  await sql.end()
  const check = (ok, what) => {
    if (!ok) throw new Error(`seeded data check failed: ${what}`)
  }
  check(
    contactRows === contacts && dealRows === deals,
    `${contactRows} contacts and ${dealRows} deals stored, ${contacts} and ${deals} seeded`
  )

  const someone = seededContact(Math.floor(contacts * 0.61803), baseMs)
  const got = (await request(base, "GET", `/v1/contacts/${someone.id}`)).json()
  check(
    got.email === someone.email && got.first_name === someone.firstName,
    `GET ${someone.id} returned ${JSON.stringify(got).slice(0, 200)}`
  )
  const byEmail = (await request(base, "GET", `/v1/contacts?${q({ filter: JSON.stringify({ email: someone.email }) })}`)).json()
  check(byEmail.data.length === 1 && byEmail.data[0].id === someone.id, "filter by email")
  const searched = (await request(base, "GET", `/v1/contacts?${q({ search: someone.email })}`)).json()
  check(
    searched.data.some((c) => c.id === someone.id),
    "search by email"
  )
  const named = (
    await request(base, "GET", `/v1/contacts?${q({ search: `${someone.firstName} ${someone.lastName}`, limit: "100" })}`)
  ).json()
  check(
    named.data.length > 0 &&
      named.data.every(
        (c) =>
          c.first_name.toLowerCase().startsWith(someone.firstName.toLowerCase()) ||
          c.last_name.toLowerCase().startsWith(someone.firstName.toLowerCase())
      ),
    "search by name"
  )
  const folded = (
    await request(base, "GET", `/v1/contacts?${q({ filter: JSON.stringify({ title: { $contains: "ENGINEER" } }), limit: "5" })}`)
  ).json()
  check(folded.data.length === 5 && folded.data.every((c) => c.title === "Sales Engineer"), "case-insensitive $contains (folded values)")
  const firstDeal = (await request(base, "GET", "/v1/deals?limit=1")).json().data[0]
  const owner = (await request(base, "GET", `/v1/contacts/${firstDeal.contact_ids[0]}`)).json()
  check(owner.deal_ids.includes(firstDeal.id), `contact ${owner.id}'s deal_ids lists its deal ${firstDeal.id}`)
  const stage = pipeline.stages[2].id
  const board = (await request(base, "GET", `/v1/deals?${q({ pipeline_id: pipeline.id, stage_id: stage, sort: "-value" })}`)).json()
  check(
    board.data.length === 25 && board.data.every((d, i) => d.stage_id === stage && (i === 0 || board.data[i - 1].value >= d.value)),
    "deal board list"
  )
  const pageTwo = (
    await request(base, "GET", `/v1/deals?${q({ pipeline_id: pipeline.id, stage_id: stage, sort: "-value", cursor: board.next_cursor })}`)
  ).json()
  check(pageTwo.data.length === 25 && pageTwo.data[0].value <= board.data[24].value, "deal board second page")
  // Every 50th contact shares the phone of the one before (seed.mjs): pairs by phone.
  const duplicates = (await request(base, "GET", "/v1/contacts/duplicates?limit=100")).json()
  check(
    duplicates.data.length === Math.min(100, Math.floor(contacts / 50)) &&
      duplicates.data.every((group) => group.rule === "phone" && group.ids.length === 2),
    `duplicates page: ${JSON.stringify(duplicates.data.slice(0, 2))}`
  )
}

/** The cursors of the first `pages` pages of duplicates, 25 groups each (the first page's is null). */
const duplicateCursors = async (base, pages) => {
  const cursors = [null]
  while (cursors.length < pages) {
    const page = (
      await request(
        base,
        "GET",
        `/v1/contacts/duplicates?${q({ limit: "25", ...(cursors.at(-1) === null ? {} : { cursor: cursors.at(-1) }) })}`
      )
    ).json()
    if (page.next_cursor === null) break
    cursors.push(page.next_cursor)
  }
  return cursors
}

/** Sequential requests over one keep-alive connection; per-request latency in ms. */
const latencies = async (base, paths, requests, maxSeconds) => {
  const out = []
  const until = performance.now() + maxSeconds * 1000
  for (let i = 0; i < requests && performance.now() < until; i++) {
    const t0 = performance.now()
    await request(base, "GET", paths(i))
    out.push(performance.now() - t0)
  }
  return out
}

const SEARCH_TARGET = { text: "p99 < 20 ms at 1M contacts (issue 14)", on: "value", atMost: 20 }

export const queries = async ({ pg, settings, runs, log, quick }) => {
  const { contacts, deals, requests, maxSeconds } = settings
  const { url, pipeline, seeded, sampled } = await seededWorkspace({ pg, database: "bench_queries", contacts, deals, log })
  const host = await startHost({ databaseUrl: url })
  try {
    await verifyThroughHost({ base: host.url, url, contacts, deals, baseMs: seeded.baseMs, pipeline })
    log(
      `  seeded ${contacts.toLocaleString("en-US")} contacts and ${deals.toLocaleString("en-US")} deals in ${seeded.seconds.toFixed(0)} s; ${sampled} sampled records match core; host checks pass`
    )

    const person = (i) => seededContact(1 + ((i * 104_729) % contacts), seeded.baseMs)
    const cursors = await duplicateCursors(host.url, requests * runs)
    const figures = [
      {
        measure: "contact list page: filter source, sort -created_at or last_name, 25",
        path: (i) =>
          `/v1/contacts?${q({ filter: JSON.stringify({ source: SOURCES[i % SOURCES.length] }), sort: i % 2 === 0 ? "-created_at" : "last_name", limit: "25" })}`,
        target: { text: "p99 < 20 ms at 1M contacts (issue 14)", on: "value", atMost: 20 }
      },
      {
        measure: "GET one contact (derives deal_ids)",
        path: (i) => `/v1/contacts/${person(i).id}`,
        target: { text: "p99 < 5 ms at 1M contacts (issue 14)", on: "value", atMost: 5 }
      },
      {
        measure: "deal board page: pipeline + stage, sort -value, 25",
        path: (i) =>
          `/v1/deals?${q({ pipeline_id: pipeline.id, stage_id: pipeline.stages[i % pipeline.stages.length].id, sort: "-value", limit: "25" })}`
      },
      {
        measure: "contact search: first and last name",
        path: (i) => `/v1/contacts?${q({ search: `${person(i).firstName} ${person(i).lastName}` })}`,
        target: SEARCH_TARGET
      },
      {
        measure: "duplicates page: 25 groups of contacts by phone, following next_cursor",
        path: (i) =>
          `/v1/contacts/duplicates?${q({ limit: "25", ...(cursors[i % cursors.length] === null ? {} : { cursor: cursors[i % cursors.length] }) })}`,
        target: { text: "p99 < 100 ms at 1M contacts (issue 28)", on: "value", atMost: 100 }
      },
      { measure: "contact search: whole email", path: (i) => `/v1/contacts?${q({ search: person(i).email })}`, target: SEARCH_TARGET },
      // What a user types before the address is complete: its first 10 characters (`first.last…`).
      {
        measure: "contact search: email prefix (10 characters)",
        path: (i) => `/v1/contacts?${q({ search: person(i).email.slice(0, 10) })}`,
        target: SEARCH_TARGET
      }
    ]
    for (const figure of figures) {
      await latencies(host.url, figure.path, 5, maxSeconds)
      figure.p50 = []
      figure.p99 = []
      figure.counts = []
    }
    for (let run = 0; run < runs; run++) {
      for (const figure of figures) {
        const sample = await latencies(host.url, (i) => figure.path(i + run * requests), requests, maxSeconds)
        figure.p50.push(quantile(sample, 0.5))
        figure.p99.push(quantile(sample, 0.99))
        figure.counts.push(sample.length)
      }
      log(
        `  run ${run + 1}/${runs}: ${figures.map((f) => `${f.measure.split(":")[0]} p50 ${f.p50[run].toFixed(1)} / p99 ${f.p99[run].toFixed(1)} ms`).join("; ")}`
      )
    }

    const scale = `${contacts.toLocaleString("en-US")} contacts, ${deals.toLocaleString("en-US")} deals`
    const rows = figures.flatMap((figure) => [
      { scenario: SCENARIO, measure: `${figure.measure}, p50`, system: "dealstream", unit: "ms", runs: figure.p50 },
      {
        scenario: SCENARIO,
        measure: `${figure.measure}, p99`,
        system: "dealstream",
        unit: "ms",
        runs: figure.p99,
        ...(figure.target
          ? {
              target: quick ? { ...figure.target, text: `${figure.target.text} (here ${contacts.toLocaleString("en-US")})` } : figure.target
            }
          : {})
      }
    ])
    const short = figures.filter((f) => f.counts.some((n) => n < requests))
    return {
      rows,
      notes: [
        `Scale: ${scale}${quick ? " (**quick mode: a smaller data set than the target's 1M contacts and 200k deals**)" : ""}, one workspace, seeded in ` +
          `${seeded.seconds.toFixed(0)} s by \`INSERT … SELECT generate_series\` in batches of 50k (bench/lib/seed.mjs): per record one \`*.created\` event, its \`ds_streams\` row and its document ` +
          "(unique email key, search words, folded values), in the engine's shapes; ids in the engine's format; then ANALYZE. Every deal lists one contact.",
        "The events' fields are those core's create parser and decider give (bench/lib/engineShapes.mjs): the seed's SQL names the values it varies, every other field takes core's value for a body that leaves it out. " +
          `Checked before measuring: ${sampled} random seeded records' events equal what core's decider records for a create of their fields, and their documents what core's projectContact/projectDeal, searchWordsOfDocument and contactUniqueKey give for that event; ` +
          "through the host: row counts, GET of a computed contact id, filter by email, search by email and by name, `$contains` on folded values, a contact's deal_ids, and two pages of a deal board.",
        `Latency: the host (own process, PostgreSQL storage) answering one request at a time over a keep-alive connection from the bench process, ${requests} requests per figure and run ` +
          `(at most ${maxSeconds} s), parameters varying from request to request (6 sources and two sorts; 6 stages; ids, names and emails of different seeded contacts). ` +
          "p50/p99 of each run; the table gives their median, min and max over the runs.",
        ...(short.length > 0
          ? [`Cut short by the ${maxSeconds} s limit: ${short.map((f) => `${f.measure} (${f.counts.join(", ")} requests)`).join("; ")}.`]
          : [])
      ],
      failures: []
    }
  } finally {
    await host.stop()
  }
}
