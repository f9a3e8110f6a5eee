import { createPromiseEngine, type NotFound } from "@dealstream/core"
import { MemoryStorage } from "@dealstream/storage-memory"
import { describe, expect, it } from "vitest"

const ctx = { workspaceId: "acme", requestId: null, actor: "embedder" }

describe("Promise facade", () => {
  it("runs engine operations as promises and rejects with the tagged domain error", async () => {
    const crm = await createPromiseEngine(MemoryStorage.layer)
    try {
      const created = await crm.contacts.create(ctx, { email: "p@x.io" })
      const id = created.data["id"] as string
      expect((await crm.contacts.get(ctx, id, null)).data["email"]).toBe("p@x.io")
      await crm.contacts.delete(ctx, id, null)
      const error = await crm.contacts.get(ctx, id, null).then(() => null, (e: NotFound) => e)
      expect(error?._tag).toBe("NotFound")
      expect(await crm.purgeExpired()).toBe(0)
    } finally {
      await crm.dispose()
    }
  })
})
