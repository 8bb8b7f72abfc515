import type { Socket } from 'node:net';
import type { Line, Reservation } from './line';
import type { LineTime } from './line-time';

/**
 * How one request body crosses the client's uplink: piece by piece through every line that
 * applies (the shared one, the connection's own), each piece counted once all of them have
 * carried it, and a fault's hold that stops the reading after some bytes, for a while or for
 * good. While a piece crosses or a hold lasts, the connection is not read (the caller pauses
 * it), so the client's bytes stop moving as on a real line.
 */

/**
 * A fault that stops reading a body once `afterBytes` of it have crossed (at its end when it is
 * shorter): `stall` for `ms`, then the body goes on; `silent` for good, the connection left open.
 */
export type BodyHold = { readonly afterBytes: number } & (
  { readonly kind: 'stall'; readonly ms: number } | { readonly kind: 'silent' }
);

/** After a piece or a hold: reading goes on, or stops (the connection closed, or went silent). */
export type CrossingOutcome = 'go' | 'stop';

/** A piece takes about this long on the slowest line, so the bytes received move in small steps. */
const PIECE_MS = 50;
/** Pieces are never smaller than this (a slow line moves in steps of this size). */
const MIN_PIECE_BYTES = 4096;

/**
 * Waits `ms` of the line's time, or less when a line's stall starts or ends meanwhile (due
 * times moved). Resolves false when the connection closes first, so no timer outlives its
 * connection.
 */
export function pauseFor(
  time: LineTime,
  ms: number,
  lines: readonly Line[],
  socket: Socket,
): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    // The call waits for the line, not for real work: a virtual clock may move meanwhile.
    const removals: (() => void)[] = [time.holdsCall?.() ?? (() => undefined)];
    const finish = (goOn: boolean) => {
      cancelTimer();
      for (const remove of removals) remove();
      resolve(goOn);
    };
    const wake = () => finish(true);
    const closed = () => finish(false);
    const cancelTimer = time.timer(ms, wake);
    socket.once('close', closed);
    removals.push(() => socket.off('close', closed));
    for (const line of lines) removals.push(line.onChange(wake));
  });
}

/** Resolves once the connection is closed, by its client or by the simulator. */
export function untilClosed(socket: Socket): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

export interface BodyCrossingOptions {
  socket: Socket;
  /** The time the lines run on. */
  time: LineTime;
  /** The lines every piece crosses; none for a body that is not paced. */
  lines: readonly Line[];
  /** Told of every piece that crossed (the uplink's counters). */
  counted(bytes: number): void;
  hold?: BodyHold | undefined;
  /** Called when a `silent` hold strikes: from then on the body is not read again. */
  onSilenced?: () => void;
}

/** One body's way across the uplink; see the file comment. */
export class BodyCrossing {
  readonly #options: BodyCrossingOptions;
  #hold: BodyHold | undefined;
  #received = 0;
  #silenced = false;

  constructor(options: BodyCrossingOptions) {
    this.#options = options;
    this.#hold = options.hold;
  }

  /** Bytes of this body that crossed so far. */
  get receivedBytes(): number {
    return this.#received;
  }

  /**
   * Passes the chunk to `deliver` at once, counted, when nothing would hold it (no limited or
   * stalled line, no hold within it) and returns true; otherwise does nothing and returns false.
   */
  passAtOnce(chunk: Buffer, deliver: (piece: Buffer) => void): boolean {
    const now = this.#options.time.monotonic();
    if (this.#silenced) return false;
    if (this.#hold !== undefined && this.#received + chunk.length >= this.#hold.afterBytes) return false;
    if (!this.#options.lines.every((line) => line.carriesAtOnce(now))) return false;
    this.#count(chunk.length);
    deliver(chunk);
    return true;
  }

  /**
   * Passes the chunk piece by piece, each delivered once every line has carried it, striking
   * the hold when its byte count is reached. 'stop' when the connection closed or went silent
   * (what was not delivered then never will be).
   */
  async pass(chunk: Buffer, deliver: (piece: Buffer) => void): Promise<CrossingOutcome> {
    if (this.#silenced) return 'stop';
    let offset = 0;
    for (;;) {
      if (this.#hold !== undefined && this.#received >= this.#hold.afterBytes) {
        if ((await this.#strike(this.#hold)) === 'stop') return 'stop';
      }
      if (offset >= chunk.length) return 'go';
      const room = this.#hold === undefined ? Infinity : this.#hold.afterBytes - this.#received;
      const size = Math.min(chunk.length - offset, this.#pieceBytes(), room);
      if (!(await this.#cross(size))) return 'stop';
      const piece = chunk.subarray(offset, offset + size);
      offset += size;
      this.#count(size);
      deliver(piece);
    }
  }

  /** At the end of the body: strikes a hold it did not reach (a body shorter than its `afterBytes`). */
  async finish(): Promise<CrossingOutcome> {
    if (this.#silenced) return 'stop';
    return this.#hold === undefined ? 'go' : this.#strike(this.#hold);
  }

  async #strike(hold: BodyHold): Promise<CrossingOutcome> {
    this.#hold = undefined;
    if (hold.kind === 'silent') {
      this.#silenced = true;
      this.#options.onSilenced?.();
      return 'stop';
    }
    return (await pauseFor(this.#options.time, hold.ms, [], this.#options.socket)) ? 'go' : 'stop';
  }

  /** Waits until every line has carried `bytes` handed over now; false when the connection closed first. */
  async #cross(bytes: number): Promise<boolean> {
    const { lines, socket, time } = this.#options;
    const now = time.monotonic();
    const reservations: [Line, Reservation][] = lines.map((line) => [line, line.reserve(bytes, now)]);
    for (;;) {
      const due = Math.max(now, ...reservations.map(([line, reservation]) => line.dueAt(reservation)));
      const waitMs = due - time.monotonic();
      if (waitMs <= 0) return true;
      if (!(await pauseFor(time, waitMs, lines, socket))) return false;
    }
  }

  /** About PIECE_MS on the slowest limited line; a whole chunk when no line is limited. */
  #pieceBytes(): number {
    const rates = this.#options.lines.flatMap((line) =>
      line.bytesPerMs === undefined ? [] : [line.bytesPerMs],
    );
    if (rates.length === 0) return Infinity;
    return Math.max(MIN_PIECE_BYTES, Math.floor(Math.min(...rates) * PIECE_MS));
  }

  #count(bytes: number): void {
    this.#received += bytes;
    this.#options.counted(bytes);
  }
}
