/**
 * One step of the schema. Applied steps are recorded in `ds_migrations` by id; a step's statements
 * never change once released (a later step alters what an earlier one made).
 */
export interface Migration {
  readonly id: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
}
