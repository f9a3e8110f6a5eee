import { ConfigProblem, resolveHostConfig } from "../../packages/http/src/host/HostConfig.js"

/** The one-line problem resolveHostConfig refuses these settings with, or null where it takes them. */
export const hostConfigProblem = (flags: Parameters<typeof resolveHostConfig>[0], env: Parameters<typeof resolveHostConfig>[1]) => {
  try {
    resolveHostConfig(flags, env)
  } catch (error) {
    if (error instanceof ConfigProblem) return error.message
    throw error
  }
  return null
}
