/** Bind parameters of one statement: every value goes in here, the text only ever holds `$n`. */
export class Params {
  readonly values: Array<unknown> = []
  add(value: unknown): string {
    this.values.push(value)
    return `$${this.values.length}`
  }
}
