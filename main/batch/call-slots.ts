/**
 * At most `size` service calls in flight at once; waiting callers are served in arrival order.
 * The send engine holds a slot only for the call itself, never while it records the answer, so
 * the durable write of one document overlaps the calls of others.
 *
 * A call may need a durable write just before it leaves (the marker that says an attempt may
 * have reached the service). That write is its `prepare`: it runs while the caller is among
 * the next `size` in line (or at once when a slot is free), so it overlaps the calls in flight
 * instead of holding a slot, and the call leaves only once it is done. A stop while waiting
 * still lets a started prepare end first, so whatever the caller records next follows it.
 * At most `size` callers have prepared and not left: after a crash, at most that many
 * markers more than calls in flight, each resolved as any unknown outcome is.
 */
export class CallSlots {
  readonly #size: number;
  #free: number;
  readonly #waiting: Waiter[] = [];

  constructor(size: number) {
    this.#size = Math.max(1, size);
    this.#free = this.#size;
  }

  /**
   * Runs `call` in a slot, after `prepare` when given. Rejects with the signal's reason if it
   * is aborted while waiting (after a started `prepare` has ended), or with `prepare`'s error.
   */
  async run<T>(signal: AbortSignal, call: () => Promise<T>, prepare?: () => Promise<void>): Promise<T> {
    let prepared: Promise<void> | undefined;
    const startPrepare = (): void => {
      if (prepared || !prepare) return;
      prepared = prepare();
      // Awaited below; until then a failure must not count as unhandled.
      prepared.catch(() => undefined);
    };
    try {
      await this.#acquire(signal, prepare ? startPrepare : undefined);
    } catch (error) {
      await prepared?.catch(() => undefined);
      throw error;
    }
    try {
      startPrepare();
      if (prepared) await prepared;
      return await call();
    } finally {
      this.#release();
    }
  }

  #acquire(signal: AbortSignal, nearFront: (() => void) | undefined): Promise<void> {
    signal.throwIfAborted();
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
        nearFront,
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        this.#tellNearFront();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
      this.#tellNearFront();
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next caller, so the count of free slots is unchanged.
    if (next) {
      next.grant();
      this.#tellNearFront();
    } else this.#free += 1;
  }

  /** Lets the next `size` callers in line prepare (each once). */
  #tellNearFront(): void {
    const end = Math.min(this.#size, this.#waiting.length);
    for (let index = 0; index < end; index += 1) {
      const waiter = this.#waiting[index];
      const nearFront = waiter?.nearFront;
      if (!waiter || !nearFront) continue;
      waiter.nearFront = undefined;
      nearFront();
    }
  }
}

interface Waiter {
  readonly grant: () => void;
  /** Called once when the caller is among the next `size` in line: it may prepare. */
  nearFront: (() => void) | undefined;
}
