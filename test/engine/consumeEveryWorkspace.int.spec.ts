import { createPromiseEngine } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, it } from "vitest"
import { everyWorkspace } from "./consumeEveryWorkspace.js"

describe("engine.consume over every workspace, memory storage", () => {
  it("handles each workspace's events once, in order, shares the workspaces, hands them over and replays them", async () => {
    const crm = await createPromiseEngine(MemoryStorage.layer)
    try {
      await everyWorkspace([crm, crm], "memory")
    } finally {
      await crm.dispose()
    }
  }, 60_000)
})
