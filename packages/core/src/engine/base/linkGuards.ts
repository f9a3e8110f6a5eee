import { Context } from "effect"

/**
 * The records a write found live while deciding (the contacts a deal comes to name, say), each at
 * the version it was read at. planAttempt collects them and its commit checks each is still at that
 * version (a stream the commit appends nothing to), so a record merged, deleted or changed between
 * the read and the commit fails the commit, and the write is decided again on what is stored then:
 * a link to a record that has just left can never be stored after the merge that moved its links.
 */
export interface LinkGuardCollector {
  readonly add: (streamId: string, version: number) => void
}

/** The collector of the write being decided; null outside one (a read's view). */
export const LinkGuards = Context.Reference<LinkGuardCollector | null>("@dealstream/core/LinkGuards", {
  defaultValue: () => null
})
