// Emmett doing the work a dealstream commit does (issue 32's fair peer): each append also writes
// the stream's document in the append's transaction, through an inline Pongo projection (Emmett's
// own PostgreSQL projections), so a command stores its event and its contact or deal document.
// dealstream's commit also writes the document's search words and the stream's version row.
import { projections } from "@event-driven-io/emmett"
import { getPostgreSQLEventStore, pongoSingleStreamProjection } from "@event-driven-io/emmett-postgresql"
import { emmettCommands } from "./emmett.mjs"

const contactDocuments = pongoSingleStreamProjection({
  collectionName: "contacts",
  canHandle: ["contact.created"],
  evolve: (_document, { data }) => ({ ...data.fields, id: data.id, created_at: data.at, updated_at: data.at })
})

const dealDocuments = pongoSingleStreamProjection({
  collectionName: "deals",
  canHandle: ["deal.created", "deal.stage_changed"],
  evolve: (document, { data, type }) =>
    type === "deal.created"
      ? { ...data.fields, id: data.id, created_at: data.at, updated_at: data.at }
      : { ...document, stage_id: data.to_stage_id, pipeline_id: data.to_pipeline_id, updated_at: data.at }
})

export const emmettDocumentsSystem = async (url, shared) => {
  const store = getPostgreSQLEventStore(url, { projections: projections.inline([contactDocuments, dealDocuments]) })
  const commands = emmettCommands(store, shared)
  // Pongo makes a collection's table on its first write; first writes running at once race in
  // CREATE TABLE (a unique violation in the catalog), so one of each goes first, alone.
  await commands.createContact("setup", 0)
  await commands.createDeal(0)
  return { name: "Emmett + documents", ...commands, close: () => store.close() }
}
