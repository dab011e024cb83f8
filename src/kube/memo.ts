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
 * A memo of at most `capacity` entries that keeps what was used recently, in two generations:
 * answers go into the young map; when it holds half the capacity it becomes the old map (the
 * previous old map is forgotten), and a hit in the old map moves the entry back to the young one.
 * So an entry used within the last `capacity / 2` insertions is always kept, and nothing outlives
 * `capacity` insertions without being used.
 *
 * Why not a strict LRU (a `Map` whose hit is deleted and set again, to move it to the end): every
 * hit then leaves a deleted slot in V8's ordered hash table, which is rebuilt (allocated anew)
 * each time those fill it — for an 8-entry memo, every few hits. A hit here is one lookup.
 * `undefined` is a value like any other.
 * @typeParam K - the input (compared with `Map` semantics: numbers and strings by value)
 * @typeParam V - the answer; shared between callers, so it must be immutable (frozen or primitive)
 */
export class BoundedMemo<K, V> {
  #young = new Map<K, V>();
  #old = new Map<K, V>();
  readonly #generation: number;

  /** @param capacity - entries kept at most, at least 2 */
  constructor(readonly capacity: number) {
    if (!(capacity >= 2)) throw new RangeError(`BoundedMemo capacity must be at least 2, got ${capacity}`);
    this.#generation = Math.floor(capacity / 2);
  }

  /** Entries held now (both generations; a key in both counts twice), at most `capacity`. */
  get size(): number {
    return this.#young.size + this.#old.size;
  }

  /** The remembered answer for `key`, else `compute(key)`, remembered. */
  get(key: K, compute: (key: K) => V): V {
    const young = this.#young;
    const hit = young.get(key);
    if (hit !== undefined || young.has(key)) return hit as V;
    const old = this.#old;
    const value = old.has(key) ? (old.get(key) as V) : compute(key);
    this.#remember(key, value);
    return value;
  }

  #remember(key: K, value: V): void {
    if (this.#young.size >= this.#generation) {
      this.#old = this.#young;
      this.#young = new Map();
    }
    this.#young.set(key, value);
  }
}
