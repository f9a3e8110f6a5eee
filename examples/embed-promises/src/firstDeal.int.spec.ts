import { describe, expect, it } from "vitest"
import { firstDeal } from "./firstDeal.js"

describe("dealstream with Promises", () => {
  it("creates a contact and a deal, moves the deal, reads its timeline, and rejects a duplicate email", async () => {
    const { contact, deal, refused, timeline } = await firstDeal()
    expect(contact).toMatchObject({ email: "ada@example.com", first_name: "Ada" })
    expect(deal).toMatchObject({ name: "Pilot", value: 5000, currency: "EUR", contact_ids: [contact["id"]] })
    expect(timeline).toHaveLength(1)
    expect(timeline[0]).toMatchObject({ deal_id: deal["id"], from_stage_id: deal["stage_id"], reason: "demo went well" })
    expect(refused).toBe("Conflict")
  })
})
