import {
  type DealRule,
  dealRulesLayer,
  EngineLive,
  IdsLive,
  ValidationError,
  WebhookConfig,
  WebhookTransport,
  WebhookTransportUnavailable
} from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { Layer } from "effect"

/** A rule of this program's own: no deal is worth more than a million. */
export const noHugeDeals: DealRule = (command) => {
  const value = command.type === "CreateDeal" || command.type === "UpdateDeal" ? command.fields["value"] : undefined
  if (typeof value === "number" && value > 1_000_000) return ValidationError.at("value", "is over our limit of 1,000,000")
}

/**
 * The engine as a Layer: a storage (with its delivery queue), ids, and how webhooks are sent (here:
 * not at all; NodeWebhookTransport.layer from @dealstream/http sends them), and the deal rules it
 * decides with. Swap MemoryStorage.layer for PgStorage.layer(url) to keep the data.
 */
export const CrmLive = EngineLive.pipe(
  Layer.provide(dealRulesLayer([noHugeDeals])),
  Layer.provide(
    Layer.mergeAll(MemoryStorage.layer, IdsLive, WebhookConfig.layer(), Layer.succeed(WebhookTransport, WebhookTransportUnavailable))
  )
)
