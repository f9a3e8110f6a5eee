/** The storage port held in process memory: for tests, embedding and throwaway hosts. */
export * as MemoryStorage from "./MemoryStorage.js"
