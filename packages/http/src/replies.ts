import type { Json, Page, Versioned } from "@dealstream/core"
import { HttpServerResponse } from "effect/http"

/**
 * A successful answer before it becomes bytes: handlers build one, the idempotency store keeps
 * one, and `respond` renders it. `body: null` is an empty body (204).
 */
export interface Reply {
  readonly status: number
  readonly body: Json | null
  readonly location: string | null
  /** The record version, sent as `ETag: "<version>"` on single-record responses. */
  readonly version: number | null
}

export const record = (versioned: Versioned, options?: { readonly status?: number; readonly location?: string }): Reply => ({
  status: options?.status ?? 200,
  body: versioned.data,
  location: options?.location ?? null,
  version: versioned.version
})

/** 201 with the address of the new record. */
export const created = (versioned: Versioned, location: string): Reply => record(versioned, { status: 201, location })

export const page = (page: Page): Reply => ({
  status: 200,
  body: { data: page.data, next_cursor: page.next_cursor },
  location: null,
  version: null
})

export const noContent: Reply = { status: 204, body: null, location: null, version: null }

export const json = (body: Json): Reply => ({ status: 200, body, location: null, version: null })

export const respond = (reply: Reply, headers: Record<string, string> = {}): HttpServerResponse.HttpServerResponse => {
  const all: Record<string, string> = { ...headers }
  if (reply.location !== null) all["location"] = reply.location
  if (reply.version !== null) all["etag"] = `"${reply.version}"`
  return reply.body === null
    ? HttpServerResponse.empty({ status: reply.status, headers: all })
    : HttpServerResponse.jsonUnsafe(reply.body, { status: reply.status, headers: all })
}

/** Where a created record lives: `/v1/contacts/con_…`. */
export const locationOf = (collection: string, versioned: Versioned): string =>
  `${collection}/${encodeURIComponent(String(versioned.data["id"]))}`
