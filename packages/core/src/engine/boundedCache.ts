/**
 * A map that keeps at most `capacity` entries, dropping the least recently used: what a host holds
 * in memory for the streams and workspaces it serves must not grow with the database.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>()

  constructor(readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key)
    if (value === undefined) return undefined
    // Map keeps insertion order: taking the entry out and in again makes it the most recent.
    this.entries.delete(key)
    this.entries.set(key, value)
    return value
  }

  set(key: K, value: V): void {
    this.entries.delete(key)
    this.entries.set(key, value)
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next()
      if (oldest.done === true) break
      this.entries.delete(oldest.value)
    }
  }

  delete(key: K): void {
    this.entries.delete(key)
  }

  clear(): void {
    this.entries.clear()
  }

  get size(): number {
    return this.entries.size
  }
}
