import type { SettingsChange, StorageUnavailable } from "@dealstream/core"
import { Option, Schema, type Stream } from "effect"
import { listenChannel, type ListenOptions } from "./listenChannel.js"

/**
 * The channel ds_commit_with_settings (functions/ds_commit_with_settings.ts) notifies when a
 * workspace's settings version moves on.
 */
export const SETTINGS_CHANNEL = "dealstream_settings"

const Changed = Schema.fromJsonString(Schema.TaggedStruct("Changed", { workspaceId: Schema.String }))
const decode = Schema.decodeUnknownOption(Changed)

/**
 * Settings changes committed by any host while the stream is consumed, and Resumed once listening
 * again after a lost connection (see listenChannel.ts): the notifications sent meanwhile are lost.
 */
export const listenSettingsChanges = (options: ListenOptions): Stream.Stream<SettingsChange, StorageUnavailable> =>
  listenChannel<SettingsChange>(options, {
    name: SETTINGS_CHANNEL,
    applicationName: "dealstream-listen-settings",
    decode: (payload) => Option.getOrNull(decode(payload)),
    resumed: { _tag: "Resumed" }
  })
