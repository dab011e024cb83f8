/**
 * Replay protection: delivery ids already accepted, in a bounded LRU (per process).
 *
 * @packageDocumentation
 */

/** A set of the most recent `capacity` delivery ids; the oldest is forgotten first. */
export class DeliveryLog {
  readonly #seen = new Map<string, true>();
  constructor(readonly capacity = 10_000) {}

  /** Whether `id` was recorded (and still remembered). */
  has(id: string): boolean {
    return this.#seen.has(id);
  }

  /** Records `id` as the most recent. */
  add(id: string): void {
    this.#seen.delete(id);
    this.#seen.set(id, true);
    while (this.#seen.size > this.capacity) {
      const oldest = this.#seen.keys().next().value as string;
      this.#seen.delete(oldest);
    }
  }

  get size(): number {
    return this.#seen.size;
  }
}
