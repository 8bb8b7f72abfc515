/**
 * At most `size` service calls in flight at once; waiting callers are served in arrival order.
 * The send engine holds a slot only for the call itself, never while it records the answer, so
 * the durable write of one document overlaps the calls of others.
 */
export class CallSlots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = Math.max(1, size);
  }

  /** Runs `call` in a slot. Rejects with the signal's reason if it is aborted while waiting. */
  async run<T>(signal: AbortSignal, call: () => Promise<T>): Promise<T> {
    await this.#acquire(signal);
    try {
      return await call();
    } finally {
      this.#release();
    }
  }

  #acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(grant);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    // The slot passes straight to the next caller, so the count of free slots is unchanged.
    if (next) next();
    else this.#free += 1;
  }
}
