import { Result } from "effect"
import { classifyIp } from "./ip.js"

export const WEBHOOK_URL_MAX = 2048

const describeClass = {
  loopback: "a loopback",
  private: "a private",
  link_local: "a link-local",
  unspecified: "an unspecified",
  multicast: "a multicast",
  reserved: "a reserved"
} as const

/**
 * A webhook target. WHATWG `URL` is a web standard (not a Node API) and the same parser the HTTP
 * client will use, so the host checked here is the host called later: no parser differential.
 * Host names are resolved and checked by the engine; only IP literals can be judged here. Left is
 * the message of the `url` error detail.
 */
export const checkWebhookUrl = (value: unknown, allowInsecure: boolean): Result.Result<string, string> => {
  if (typeof value !== "string") return Result.fail("must be a string")
  const text = value.trim()
  if (text.length > WEBHOOK_URL_MAX) return Result.fail(`must be at most ${WEBHOOK_URL_MAX} characters`)
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return Result.fail("must be an absolute URL")
  }
  if (url.protocol !== "https:" && !(allowInsecure && url.protocol === "http:")) {
    return Result.fail(allowInsecure ? "must be an http or https URL" : "must be an https URL")
  }
  if (url.username !== "" || url.password !== "") return Result.fail("must not contain credentials")
  // `https://x/#` has an empty `hash` but still carries a fragment.
  if (text.includes("#")) return Result.fail("must not contain a fragment")
  const kind = classifyIp(url.hostname)
  if (!allowInsecure && kind !== "public" && kind !== "invalid") {
    return Result.fail(`must not point to ${describeClass[kind]} address`)
  }
  return Result.succeed(text)
}
