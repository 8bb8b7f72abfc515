import type { ServerResponse } from 'node:http';
import { isoTimestamp } from './clock';
import type { ServiceState } from './service-state';
import type { FaultKind, OperationName } from './types';

/**
 * Builds the call-log entry of one HTTP call as it goes through the pipeline, and adds it to
 * the log exactly once: when the answer is written, or when the connection ends without one.
 */
export class CallTracker {
  clientId: string | null = null;
  fault: FaultKind | null = null;
  /** For uploads: the body bytes received so far, read when the call is logged. */
  receivedBytes: (() => number) | undefined;
  #settled = false;
  readonly #state: ServiceState;
  readonly #method: string;
  readonly #path: string;
  readonly #operation: OperationName;
  readonly #idempotencyKey: string | undefined;
  readonly #receivedAt: number;
  /** The state's sequence number taken on arrival (orders this call against answers). */
  readonly sequence: number;

  constructor(
    state: ServiceState,
    call: { method: string; path: string; operation: OperationName; idempotencyKey?: string | undefined },
    response: ServerResponse,
  ) {
    this.#state = state;
    this.#method = call.method;
    this.#path = call.path;
    this.#operation = call.operation;
    this.#idempotencyKey = call.idempotencyKey;
    this.#receivedAt = state.clock.now();
    this.sequence = state.nextSequence();
    state.callsUnderWay += 1;
    response.once('close', () => this.settle(null));
  }

  /** When the call arrived, by the simulator clock. */
  get receivedAt(): number {
    return this.#receivedAt;
  }

  /** Logs the call with the status answered, or null when no answer reached the client. */
  settle(status: number | null): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#state.callsUnderWay -= 1;
    this.#state.calls.push({
      method: this.#method,
      path: this.#path,
      operation: this.#operation,
      clientId: this.clientId,
      status,
      fault: this.fault,
      at: isoTimestamp(this.#receivedAt),
      ...(this.#idempotencyKey === undefined ? {} : { idempotencyKey: this.#idempotencyKey }),
      ...(this.receivedBytes === undefined ? {} : { receivedBytes: this.receivedBytes() }),
    });
  }
}
