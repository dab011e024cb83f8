/**
 * Simulated time for the emulator: a clock that only moves when the loop is idle, jumping
 * straight to the next timer (a simulated week runs in seconds, nothing ever sleeps).
 *
 * @packageDocumentation
 */

/** One pending timer. `at` is simulated epoch milliseconds. */
interface Timer {
  at: number;
  seq: number;
  label: string;
  run: () => void | Promise<void>;
}

/**
 * The simulated clock plus a timer queue. Timers due at the same millisecond fire in the order
 * they were scheduled (FIFO), like a real event loop would.
 */
export class Scheduler {
  #now: number;
  #seq = 0;
  #timers: Timer[] = [];

  /** @param startMs - the initial simulated time, epoch milliseconds */
  constructor(startMs: number) {
    this.#now = startMs;
  }

  /** Current simulated time, epoch milliseconds. */
  now(): number {
    return this.#now;
  }

  /** Current simulated time as a Date (what the hook server's clock returns). */
  date(): Date {
    return new Date(this.#now);
  }

  /**
   * Runs `run` at simulated time `atMs` (clamped to now: a timer is never in the past).
   * @returns a cancel function
   */
  at(atMs: number, label: string, run: () => void | Promise<void>): () => void {
    const timer: Timer = { at: Math.max(atMs, this.#now), seq: this.#seq++, label, run };
    // Sorted insert from the end: most timers are scheduled in increasing time order.
    let i = this.#timers.length;
    while (i > 0 && this.#timers[i - 1]!.at > timer.at) i--;
    this.#timers.splice(i, 0, timer);
    return () => {
      const idx = this.#timers.indexOf(timer);
      if (idx >= 0) this.#timers.splice(idx, 1);
    };
  }

  /** Runs `run` after `delayMs` simulated milliseconds. */
  after(delayMs: number, label: string, run: () => void | Promise<void>): () => void {
    return this.at(this.#now + delayMs, label, run);
  }

  /** Time of the next timer, or undefined when none is pending. */
  nextAt(): number | undefined {
    return this.#timers[0]?.at;
  }

  /** Number of pending timers. */
  get pending(): number {
    return this.#timers.length;
  }

  /**
   * Moves the clock to the next timer (if it is at or before `limitMs`) and fires every timer due
   * at that instant. Returns false (and moves the clock to `limitMs`) when nothing is due by then.
   */
  async advance(limitMs: number): Promise<boolean> {
    const next = this.#timers[0];
    if (!next || next.at > limitMs) {
      if (limitMs > this.#now && Number.isFinite(limitMs)) this.#now = limitMs;
      return false;
    }
    this.#now = Math.max(this.#now, next.at);
    while (this.#timers[0] && this.#timers[0].at <= this.#now) {
      const timer = this.#timers.shift()!;
      await timer.run();
    }
    return true;
  }
}
