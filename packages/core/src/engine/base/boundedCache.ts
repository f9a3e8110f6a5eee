/**
 * A map that keeps at most `capacity` entries, dropping the least recently used (a tenth of them at
 * once when full): what a host holds in memory for the streams and workspaces it serves must not
 * grow with the database.
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
    if (this.entries.size <= this.capacity) return
    // Down to nine tenths in one pass: a Map's iteration from its start walks over the slots of
    // entries deleted since its last rehash, so dropping one entry per insertion at capacity made
    // every insertion pay for all the ones dropped before it.
    const keep = Math.floor(this.capacity * 0.9)
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= keep) break
      this.entries.delete(oldest)
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
