import { isoTimestamp } from './clock';
import type { OperationName } from './types';
import type { ViolationKind } from './violations';

/**
 * Politeness a careful operator expects (ARCHITECTURE.md "Principles the code keeps"): after a
 * 429, or a 503 with Retry-After, the same client leaves that operation alone until the
 * instant the Retry-After names; and nobody reads the same signing request twice within
 * `MIN_READ_SPACING_MS`. Breaches are recorded as `retry-after` and `read-spacing`
 * violations. Times are by the simulator clock; sequence numbers order events within one
 * millisecond, so a call is held only to windows opened before it arrived.
 *
 * A call may arrive after the answer was written and still have left the client before the
 * client could read it (another connection, already on its way; with client and simulator in
 * one process, its bytes can arrive several ms later). So a window holds at once the calls on
 * the connection that carried the answer (HTTP/1.1 sends the next request there only after
 * reading it), and calls on other connections only from `IN_FLIGHT_GRACE_MS` after the answer
 * was written on, as an operator allows a round trip for calls already under way.
 */

/** Reads of one signing request by one client must arrive at least this far apart. */
export const MIN_READ_SPACING_MS = 5_000;

/** How long after a Retry-After answer a call on another connection may still have been under way. */
export const IN_FLIGHT_GRACE_MS = 500;

/** The operations a Retry-After covers, by the call log's operation name. */
const WINDOWED_OPERATIONS: Partial<Record<OperationName, string>> = {
  token: 'token',
  upload: 'upload',
  createSigningRequest: 'create',
  readSigningRequest: 'read',
  addParticipant: 'participant',
  prepare: 'prepare',
  createWidgetSession: 'widget',
};

/** One call as the watch sees it. `client` is the client id, or the caller's IP when unknown. */
export interface WatchedCall {
  method: string;
  path: string;
  operation: OperationName;
  client: string;
  /** Arrival by the simulator clock, and the sequence number taken on arrival. */
  arrivedAt: number;
  sequence: number;
  /** The number of the connection the call came on. */
  connection: number;
  /** For reads: the signing request id of the path. */
  requestId?: string;
}

interface RetryWindow {
  /** Sequence number taken when the answer was written: only calls that arrived later are held to it. */
  openedAfter: number;
  /** The connection that carried the answer: later calls on it are held at once. */
  connection: number;
  /** When the answer was written: calls on other connections are held from `IN_FLIGHT_GRACE_MS` later on. */
  givenAt: number;
  until: number;
  detail: string;
}

/**
 * True when a call on another connection than the answer's may have left the client before
 * the client could read the answer: it arrived within the grace after the answer was written.
 */
function mayHaveBeenUnderWay(call: WatchedCall, window: RetryWindow): boolean {
  return call.arrivedAt < window.givenAt + IN_FLIGHT_GRACE_MS;
}

/** Tracks Retry-After windows and read times per client, and records breaches. */
export class PolitenessWatch {
  readonly #windows = new Map<string, RetryWindow[]>();
  readonly #lastReads = new Map<string, number>();
  readonly #record: (kind: ViolationKind, description: string) => void;

  constructor(record: (kind: ViolationKind, description: string) => void) {
    this.#record = record;
  }

  /** Checks one arrived call against the windows opened before it and the read spacing. */
  checkCall(call: WatchedCall): void {
    this.#checkRetryAfter(call);
    if (call.operation === 'readSigningRequest' && call.requestId !== undefined) this.#checkReadSpacing(call);
  }

  /**
   * Opens a window after a 429 or 503 carrying Retry-After was written to `call`'s client:
   * calls of the same operation by the same client arriving from now until `until` breach it,
   * on `call`'s connection at once, on other connections from `IN_FLIGHT_GRACE_MS` after
   * `writtenAt` on. `sequence` is taken when the answer was written.
   */
  noteRetryAfter(
    call: Pick<WatchedCall, 'method' | 'path' | 'operation' | 'client' | 'connection'>,
    answer: { status: number; retryAfter: string; writtenAt: number; sequence: number; until: number },
  ): void {
    const operation = WINDOWED_OPERATIONS[call.operation];
    if (operation === undefined) return;
    const key = `${call.client}\u0000${operation}`;
    const open = (this.#windows.get(key) ?? []).filter((window) => window.until > answer.writtenAt);
    const window: RetryWindow = {
      openedAfter: answer.sequence,
      connection: call.connection,
      givenAt: answer.writtenAt,
      until: answer.until,
      detail: `${answer.status} to ${call.method} ${call.path}, Retry-After: ${answer.retryAfter}`,
    };
    open.push(window);
    this.#windows.set(key, open);
  }

  #checkRetryAfter(call: WatchedCall): void {
    const operation = WINDOWED_OPERATIONS[call.operation];
    if (operation === undefined) return;
    const windows = this.#windows.get(`${call.client}\u0000${operation}`) ?? [];
    const breached = windows
      .filter((window) => window.openedAfter < call.sequence && call.arrivedAt < window.until)
      .filter((window) => window.connection === call.connection || !mayHaveBeenUnderWay(call, window))
      .sort((first, second) => second.until - first.until)[0];
    if (!breached) return;
    this.#record(
      'retry-after',
      `${call.method} ${call.path} by ${call.client} ${breached.until - call.arrivedAt} ms before the ` +
        `Retry-After given at ${isoTimestamp(breached.givenAt)} ended (${breached.detail})`,
    );
  }

  #checkReadSpacing(call: WatchedCall): void {
    const key = `${call.client}\u0000${call.requestId ?? ''}`;
    const previous = this.#lastReads.get(key);
    this.#lastReads.set(key, Math.max(previous ?? call.arrivedAt, call.arrivedAt));
    if (previous === undefined) return;
    const gap = Math.abs(call.arrivedAt - previous);
    if (gap >= MIN_READ_SPACING_MS) return;
    this.#record(
      'read-spacing',
      `${call.method} ${call.path} by ${call.client} ${gap} ms after the previous read of it ` +
        `(at least ${MIN_READ_SPACING_MS} ms apart)`,
    );
  }
}
