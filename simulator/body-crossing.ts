import type { Socket } from 'node:net';
import type { Line, Reservation } from './line';

/**
 * How one request body crosses the client's uplink: piece by piece through every line that
 * applies (the shared one, the connection's own), each piece counted once all of them have
 * carried it. While a piece crosses, the connection is not read (the caller pauses it), so
 * the client's bytes stop moving as on a real line.
 */

/** After a piece: reading goes on, or stops (the connection closed). */
export type CrossingOutcome = 'go' | 'stop';

/** A piece takes about this long on the slowest line, so the bytes received move in small steps. */
const PIECE_MS = 50;
/** Pieces are never smaller than this (a slow line moves in steps of this size). */
const MIN_PIECE_BYTES = 4096;

/**
 * Waits `ms`, or less when a line's stall starts or ends meanwhile (due times moved). Resolves
 * false when the connection closes first, so no timer outlives its connection.
 */
export function pauseFor(ms: number, lines: readonly Line[], socket: Socket): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const removals: (() => void)[] = [];
    const finish = (goOn: boolean) => {
      clearTimeout(timer);
      for (const remove of removals) remove();
      resolve(goOn);
    };
    const wake = () => finish(true);
    const closed = () => finish(false);
    const timer = setTimeout(wake, ms);
    socket.once('close', closed);
    removals.push(() => socket.off('close', closed));
    for (const line of lines) removals.push(line.onChange(wake));
  });
}

export interface BodyCrossingOptions {
  socket: Socket;
  /** The lines every piece crosses; none for a body that is not paced. */
  lines: readonly Line[];
  /** Told of every piece that crossed (the uplink's counters). */
  counted(bytes: number): void;
}

/** One body's way across the uplink; see the file comment. */
export class BodyCrossing {
  readonly #options: BodyCrossingOptions;
  #received = 0;

  constructor(options: BodyCrossingOptions) {
    this.#options = options;
  }

  /** Bytes of this body that crossed so far. */
  get receivedBytes(): number {
    return this.#received;
  }

  /**
   * Passes the chunk to `deliver` at once, counted, when nothing would hold it (no limited or
   * stalled line) and returns true; otherwise does nothing and returns false.
   */
  passAtOnce(chunk: Buffer, deliver: (piece: Buffer) => void): boolean {
    const now = performance.now();
    if (!this.#options.lines.every((line) => line.carriesAtOnce(now))) return false;
    this.#count(chunk.length);
    deliver(chunk);
    return true;
  }

  /**
   * Passes the chunk piece by piece, each delivered once every line has carried it. 'stop' when
   * the connection closed (what was not delivered then never will be).
   */
  async pass(chunk: Buffer, deliver: (piece: Buffer) => void): Promise<CrossingOutcome> {
    let offset = 0;
    for (;;) {
      if (offset >= chunk.length) return 'go';
      const size = Math.min(chunk.length - offset, this.#pieceBytes());
      if (!(await this.#cross(size))) return 'stop';
      const piece = chunk.subarray(offset, offset + size);
      offset += size;
      this.#count(size);
      deliver(piece);
    }
  }

  /** Waits until every line has carried `bytes` handed over now; false when the connection closed first. */
  async #cross(bytes: number): Promise<boolean> {
    const { lines, socket } = this.#options;
    const now = performance.now();
    const reservations: [Line, Reservation][] = lines.map((line) => [line, line.reserve(bytes, now)]);
    for (;;) {
      const due = Math.max(now, ...reservations.map(([line, reservation]) => line.dueAt(reservation)));
      const waitMs = due - performance.now();
      if (waitMs <= 0) return true;
      if (!(await pauseFor(waitMs, lines, socket))) return false;
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
