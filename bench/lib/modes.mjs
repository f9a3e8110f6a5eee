// Durations and sizes of the bench's three modes: full (the figures of RESULTS.md), quick (every
// scenario shorter and smaller) and smoke (every scenario at sizes that only show it still runs).

/**
 * Quick keeps every scenario, smaller, except what a target names: the list page's 100k contacts
 * and the 1,000 stage changes of a long deal (`history`: how many such deals, how many times a run
 * moves each, and how many changes each holds first; see dealHistory.mjs).
 */
const quick = {
  runs: 3,
  commit: { seconds: 0.4, warmupSeconds: 0.4, deals: 256, history: { longDeals: 8, movesPerDeal: 25, changes: 1000 } },
  memory: {
    seconds: 0.5,
    warmupSeconds: 0.5,
    footprintContacts: 5_000,
    readContacts: 10_000,
    listContacts: 100_000,
    deals: 512,
    history: { longDeals: 32, movesPerDeal: 50, changes: 1000 }
  },
  http: { seconds: 0.6, warmupSeconds: 0.5, connections: 50, listContacts: 200 },
  queries: { contacts: 50_000, deals: 10_000, requests: 20, maxSeconds: 2.5 },
  webhooks: { latencyContacts: 20, loadedContacts: 300, throughputContacts: 1000, recoveryEvents: 2000, concurrency: 16 },
  feed: { events: 100_000, latencyContacts: 50 },
  import: { contacts: 10_000, singleContacts: 5_000 },
  export: { contacts: 100_000, deals: 20_000, maxSeconds: 60 },
  scaleout: {
    writers: 8,
    writesBefore: 150,
    writesAfter: 150,
    seconds: 2,
    warmupSeconds: 1,
    connections: 50,
    contacts: 200,
    statsSettleSeconds: 11
  },
  figures: { deals: 20_000, requests: 50, asOfRequests: 3, maxSeconds: 10 },
  citus: { seconds: 1, warmupSeconds: 0.6, workspaces: 64, deals: 256, readWorkspaces: 8, readContacts: 50, shardCount: 32 }
}

const full = {
  runs: 5,
  commit: { seconds: 5, warmupSeconds: 3, deals: 2048, history: { longDeals: 32, movesPerDeal: 50, changes: 1000 } },
  memory: {
    seconds: 5,
    warmupSeconds: 2,
    footprintContacts: 100_000,
    readContacts: 10_000,
    listContacts: 100_000,
    deals: 512,
    history: { longDeals: 128, movesPerDeal: 50, changes: 1000 }
  },
  http: { seconds: 10, warmupSeconds: 3, connections: 50, listContacts: 2000 },
  queries: { contacts: 1_000_000, deals: 200_000, requests: 300, maxSeconds: 60 },
  webhooks: { latencyContacts: 300, loadedContacts: 2000, throughputContacts: 5000, recoveryEvents: 100_000, concurrency: 16 },
  feed: { events: 1_000_000, latencyContacts: 200 },
  import: { contacts: 100_000, singleContacts: 20_000 },
  export: { contacts: 1_000_000, deals: 200_000, maxSeconds: 300 },
  scaleout: {
    writers: 8,
    writesBefore: 300,
    writesAfter: 300,
    seconds: 10,
    warmupSeconds: 3,
    connections: 50,
    contacts: 2000,
    statsSettleSeconds: 11
  },
  figures: { deals: 200_000, requests: 200, asOfRequests: 2, maxSeconds: 60 },
  citus: { seconds: 5, warmupSeconds: 2, workspaces: 64, deals: 1024, readWorkspaces: 8, readContacts: 200, shardCount: 32 }
}

/**
 * One round of everything, each size about the least at which the scenario's own checks still
 * hold: 64 deals so that each of the commit path's 32 workers has two of its own, 120 contacts so
 * that the HTTP list page (2 sources of 6) has a second page for its cursor, 600 seeded deals so
 * that the queries' deal board has two full pages per stage, a feed log of more groups than the 50
 * it folds. Scale-out: one failover round, and 1.2 s, not 11, for PostgreSQL's statistics to
 * settle (its transactions per read are then short of the truth; the 10 s of PGSTAT_IDLE_INTERVAL
 * would double the smoke run's time).
 */
const smoke = {
  runs: 1,
  commit: { seconds: 0.1, warmupSeconds: 0.1, deals: 64, history: { longDeals: 2, movesPerDeal: 5, changes: 20 } },
  memory: {
    seconds: 0.1,
    warmupSeconds: 0.1,
    footprintContacts: 200,
    readContacts: 200,
    listContacts: 300,
    deals: 16,
    history: { longDeals: 2, movesPerDeal: 5, changes: 20 }
  },
  http: { seconds: 0.2, warmupSeconds: 0, connections: 4, listContacts: 120 },
  queries: { contacts: 2_000, deals: 600, requests: 5, maxSeconds: 1 },
  webhooks: { latencyContacts: 5, loadedContacts: 20, throughputContacts: 50, recoveryEvents: 50, concurrency: 4 },
  feed: { events: 2_000, latencyContacts: 5 },
  import: { contacts: 500, singleContacts: 200 },
  export: { contacts: 500, deals: 100, maxSeconds: 30 },
  scaleout: {
    writers: 8,
    writesBefore: 40,
    writesAfter: 40,
    seconds: 1,
    warmupSeconds: 0,
    connections: 8,
    contacts: 120,
    statsSettleSeconds: 1.2
  },
  figures: { deals: 500, requests: 3, asOfRequests: 1, maxSeconds: 1 },
  citus: { seconds: 0.3, warmupSeconds: 0.2, workspaces: 64, deals: 64, readWorkspaces: 4, readContacts: 10, shardCount: 4 }
}

export const modes = { full, quick, smoke }
