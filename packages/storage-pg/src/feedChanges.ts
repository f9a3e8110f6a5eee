import type { FeedChange, StorageUnavailable } from "@dealstream/core"
import { Option, Schema, type Stream } from "effect"
import { listenChannel, type ListenOptions } from "./listenChannel.js"

/**
 * The channel ds_events' feed trigger (functions/ds_events_notify_feed.ts) notifies when a
 * workspace's feed gains record events.
 */
export const FEED_CHANNEL = "dealstream_feed"

const Appended = Schema.fromJsonString(Schema.TaggedStruct("Appended", { workspaceId: Schema.String }))
const decode = Schema.decodeUnknownOption(Appended)

/**
 * Feed changes committed by any host while the stream is consumed, and Resumed once listening
 * again after a lost connection (see listenChannel.ts).
 */
export const listenFeedChanges = (options: ListenOptions): Stream.Stream<FeedChange, StorageUnavailable> =>
  listenChannel<FeedChange>(options, {
    name: FEED_CHANNEL,
    applicationName: "dealstream-listen-feed",
    decode: (payload) => Option.getOrNull(decode(payload)),
    resumed: { _tag: "Resumed" }
  })
