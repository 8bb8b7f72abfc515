/**
 * At most `size` service calls in flight at once; waiting callers are served in arrival order.
 * The send engine holds a slot only for the call itself, never while it records the answer, so
 * the durable write of one document overlaps the calls of others.
 */
export class CallSlots {
  #size: number;
  #busy = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  /** How many calls may be in flight at once. */
  get size(): number {
    return this.#size;
  }

  /** Calls in flight now. */
  get busy(): number {
    return this.#busy;
  }

  /**
   * Lets `size` calls be in flight from now on (at least one). Calls already in flight go on; a
   * smaller size only holds back the next ones until enough have ended.
   */
  resize(size: number): void {
    this.#size = Math.max(1, size);
    while (this.#busy < this.#size && this.#waiting.length > 0) {
      this.#busy += 1;
      this.#waiting.shift()?.();
    }
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
    if (this.#busy < this.#size) {
      this.#busy += 1;
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
    this.#busy -= 1;
    // The slot passes straight to the next caller while the size allows it.
    if (this.#busy < this.#size) {
      const next = this.#waiting.shift();
      if (next) {
        this.#busy += 1;
        next();
      }
    }
  }
}
