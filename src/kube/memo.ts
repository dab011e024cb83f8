/**
 * The one bounded memo for pure functions the hooks call again and again with the same input
 * (compiled schedules, a schedule's answers, parsed and formatted times).
 *
 * A memo of a pure function cannot change an answer, only its cost; bounding it keeps any stream
 * of distinct inputs (a hostile request, a cluster with many schedules) from growing memory.
 *
 * @packageDocumentation
 */

/**
 * A map of at most `capacity` entries, the least recently used forgotten first (a `Map` keeps
 * insertion order, so a hit is moved to the end). `undefined` is a value like any other.
 * @typeParam K - the input (compared with `Map` semantics: numbers and strings by value)
 * @typeParam V - the answer; shared between callers, so it must be immutable (frozen or primitive)
 */
export class BoundedMemo<K, V> {
  readonly #entries = new Map<K, V>();
  /** @param capacity - entries kept, at least 1 */
  constructor(readonly capacity: number) {}

  /** The remembered answer for `key`, else `compute(key)`, remembered. */
  get(key: K, compute: (key: K) => V): V {
    const entries = this.#entries;
    if (entries.has(key)) {
      const value = entries.get(key) as V;
      entries.delete(key);
      entries.set(key, value);
      return value;
    }
    const value = compute(key);
    if (entries.size >= this.capacity) entries.delete(entries.keys().next().value as K);
    entries.set(key, value);
    return value;
  }
}
