import { Effect } from "effect"
import { announcedAt, storedAnnouncement } from "../../feed/feedEvent.js"
import type { RecordTypeSet } from "../../record/recordTypeSet.js"
import { changeFeedTypeMatches } from "../../storage/changeFeed.js"
import type { NewEvent } from "../../storage/events.js"
import { type InlineEvent, type InlineProjection, type InlineWrite, projectionFailed } from "../../storage/inlineProjection.js"
import type { Commit, StorageService } from "../../storage/Storage.js"

/** A commit's events as its projections see them (InlineEvent), in commit order. */
const inlineEvents = (commit: Commit, recordTypes: RecordTypeSet): ReadonlyArray<InlineEvent> =>
  commit.streams.flatMap((append) =>
    append.events.map((event: NewEvent, j) => {
      const stored = { ...event, sequence: 0, streamId: append.streamId, streamVersion: append.expectedVersion + j + 1, recordedAt: "" }
      return {
        id: event.metadata.eventId,
        type: event.type,
        created_at: announcedAt(stored),
        workspace_id: event.metadata.workspaceId,
        stream_id: append.streamId,
        stream_version: stored.streamVersion,
        data: storedAnnouncement(stored, recordTypes) ?? { id: append.streamId }
      }
    })
  )

/**
 * The storage every commit of the engine goes through: each commit carries what the inline
 * projections make of its events (Commit.inline), so that they run in it. Every command, batch and
 * worker commits through here, so no write path can leave a projection behind. A projection sees
 * the feed's event types only (those of its `types`), and is not called for a commit without any.
 */
export const withInlineProjections = (
  storage: StorageService,
  projections: ReadonlyArray<InlineProjection>,
  recordTypes: RecordTypeSet
): StorageService =>
  projections.length === 0
    ? storage
    : {
        ...storage,
        commit: (commit) =>
          Effect.suspend(() => {
            const events = inlineEvents(commit, recordTypes)
            const inline: Array<InlineWrite> = [...(commit.inline ?? [])]
            for (const projection of projections) {
              const handled = events.filter(
                (event) => recordTypes.feedTypes.includes(event.type) && changeFeedTypeMatches(projection.types ?? [], event.type)
              )
              if (handled.length === 0) continue
              try {
                inline.push(projection.write(handled))
              } catch (cause) {
                return Effect.fail(projectionFailed(projection.name, cause))
              }
            }
            return storage.commit(inline.length === 0 ? commit : { ...commit, inline })
          })
      }
