/**
 * A token bucket over all reads: at most `perMinute` on average, with short bursts of at most
 * `burst`. Keeps a tray app tracking a thousand requests from ever hammering the service.
 */
export class ReadBudget {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #updatedAt: number;

  constructor(perMinute: number, burst: number, now: () => number) {
    this.#perMs = perMinute / 60_000;
    this.#burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#updatedAt = now();
  }

  #refill(): void {
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#updatedAt) * this.#perMs);
    this.#updatedAt = now;
  }

  /** Takes one read from the budget if one is available. */
  tryTake(): boolean {
    this.#refill();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Milliseconds until one read is available (0 when one is available now). */
  msUntilAvailable(): number {
    this.#refill();
    return this.#tokens >= 1 ? 0 : Math.ceil((1 - this.#tokens) / this.#perMs);
  }
}
