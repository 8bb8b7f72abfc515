/**
 * The simulator's time for suites that kill a real child process right after the service did a
 * call's work: this computer's clock, with a say in the moment each answer leaves. The simulator
 * waits its latency after the work and before the answer (`callWaits`); there the test hears
 * that the work is done (`onWorkDone`), before any answer could leave, and can hold every answer
 * back until the child is dead. A kill "while the answer is on its way" then lands there
 * always, however loaded the machine, instead of racing the latency.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { TimeSource } from '../../simulator/clock';

export class AnswerHold implements TimeSource {
  #held: Promise<unknown> | undefined;
  /** Called each time the service has done a call's work and is about to wait its latency. */
  onWorkDone: (() => void) | undefined;

  now(): number {
    return Date.now();
  }

  async callWaits(ms: number): Promise<void> {
    this.onWorkDone?.();
    await sleep(ms);
    while (this.#held) await this.#held;
  }

  /** No answer leaves before `until` settles (the killed child's end). */
  holdUntil(until: Promise<unknown>): void {
    const held = until
      .catch(() => undefined)
      .finally(() => {
        if (this.#held === held) this.#held = undefined;
      });
    this.#held = held;
  }
}
