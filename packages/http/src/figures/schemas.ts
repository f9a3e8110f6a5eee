import { Schema } from "effect"
import { exampleId, Timestamp } from "../documented.js"

/** Amounts per ISO 4217 currency, never converted; deals with a value and no currency count under "XXX". */
const Money = Schema.Record(Schema.String, Schema.Finite).annotate({
  identifier: "MoneyByCurrency",
  description:
    "Amounts by ISO 4217 currency code, never converted; a value without a currency counts under XXX. Exact sums, " +
    "rounded once to the currency's minor unit.",
  examples: [{ EUR: 12500, USD: 900.5 }]
})

const Days = (description: string) => Schema.NullOr(Schema.Finite).annotate({ description: `${description} Decimal days, two decimals.` })
const Rate = (description: string) => Schema.NullOr(Schema.Finite).annotate({ description: `${description} From 0 to 1, four decimals.` })

const Totals = Schema.Struct({
  count: Schema.Int,
  value: Money,
  weighted_value: Money.annotate({ description: "value × probability (the deal's own, else its stage's), over the deals that have both." })
})

export const PipelineSummary = Schema.Struct({
  pipeline_id: exampleId("pipe"),
  as_of: Timestamp.annotate({ description: "The instant the figures are of: as_of when given, else the time of the request." }),
  stages: Schema.Array(
    Schema.Struct({
      stage_id: exampleId("stage"),
      count: Schema.Int,
      value: Money,
      weighted_value: Totals.fields.weighted_value,
      average_days_in_stage: Days("Mean of (as_of − stage_entered_at) over the stage's deals; null when it holds none.")
    })
  ).annotate({ description: "Every stage of the pipeline, in position order, zeros included." }),
  open: Totals.annotate({ description: "The deals whose status is open." })
}).annotate({
  identifier: "PipelineSummary",
  description: "The pipeline's live deals (those in the trash count nowhere) now, or as of an instant."
})

export const PipelineConversion = Schema.Struct({
  pipeline_id: exampleId("pipe"),
  from: Schema.String.annotate({ format: "date" }),
  to: Schema.String.annotate({ format: "date" }),
  stages: Schema.Array(
    Schema.Struct({
      stage_id: exampleId("stage"),
      entered: Schema.Int.annotate({
        description: "Deals that entered the stage in the window (a create enters its first stage); each once."
      }),
      advanced: Schema.Int.annotate({
        description:
          "Of those, the deals that later, before to, entered an open stage of higher position or a won stage (positions " +
          "and outcomes as the pipeline has them now)."
      }),
      conversion_rate: Rate("advanced / entered; null when none entered."),
      average_days: Days("Mean length of the stays in the stage that ended in the window; null when none did."),
      median_days: Days("Median of the same.")
    })
  ),
  won: Schema.Int.annotate({ description: "Deals now won whose closed_at is in the window." }),
  lost: Schema.Int.annotate({ description: "Deals now lost whose closed_at is in the window." }),
  win_rate: Rate("won / (won + lost); null when both are 0."),
  average_cycle_days: Days("Mean of closed_at − created_at over those won deals.")
}).annotate({
  identifier: "PipelineConversion",
  description: "How deals moved through the pipeline in the window [from, to) of UTC dates."
})

export const DealForecast = Schema.Struct({
  interval: Schema.Literals(["month", "quarter"]),
  buckets: Schema.Array(
    Schema.Struct({
      period: Schema.String.annotate({ examples: ["2027-01", "2027-Q1"] }),
      open: Totals.annotate({ description: "Open deals whose expected_close_date is in the period (and the window)." }),
      won: Schema.Struct({ count: Schema.Int, value: Money }).annotate({
        description: "Won deals whose closed_at is in the period (and the window)."
      })
    })
  ).annotate({ description: "Every period the window touches, in order." }),
  unscheduled: Totals.annotate({ description: "Open deals without an expected_close_date." })
}).annotate({ identifier: "DealForecast", description: "What is expected to close, and what closed, per period of the window [from, to)." })
