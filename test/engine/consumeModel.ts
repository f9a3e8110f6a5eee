/**
 * The read model the consumer properties keep (consume.*.spec.ts): per contact, the titles its
 * events carried, in the order they were applied; and every event id applied, as often as it was.
 * The same fold over the change feed read whole is what the consumer must have built.
 */

/** An event as the change feed shows it, of the contacts the properties write. */
export interface FeedContactEvent {
  readonly id: string
  readonly type: string
  readonly data: { readonly contact?: { readonly id: string; readonly title?: string | null } }
}

/** What the consumer applied: titles per contact and every event id, duplicates kept. */
export interface ReadModel {
  readonly titles: Map<string, Array<string>>
  readonly applied: Array<string>
}

/** A model nothing was applied to yet. */
export const emptyModel = (): ReadModel => ({ titles: new Map(), applied: [] })

/** One event into the model (what the handler does; on PostgreSQL the same as SQL). */
export const apply = (model: ReadModel, event: FeedContactEvent): void => {
  model.applied.push(event.id)
  const contact = event.data.contact
  if (contact === undefined) return
  const titles = model.titles.get(contact.id) ?? []
  titles.push(contact.title ?? "")
  model.titles.set(contact.id, titles)
}

/** The fold of the log: the model a consumer applying each event once, in feed order, builds. */
export const foldOf = (events: ReadonlyArray<FeedContactEvent>): ReadModel => {
  const model = emptyModel()
  for (const event of events) apply(model, event)
  return model
}

/** Comparable forms: titles sorted by contact, applied ids sorted (their order is per stream, checked by titles). */
export const comparable = (model: ReadModel) => ({
  titles: [...model.titles].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  applied: [...model.applied].sort()
})
