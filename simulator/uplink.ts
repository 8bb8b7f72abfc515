import type { Socket } from 'node:net';
import { BodyCrossing, type BodyHold } from './body-crossing';
import { checkMbit, Line } from './line';
import { realLineTime, type LineTime } from './line-time';

/**
 * The client's uplink, as upload bodies meet it: one line shared by every connection (an
 * office's ADSL uplink), and a line of its own for each TCP connection (a per-flow shaper, a
 * VPN or a proxy that caps each connection). Either or both may be limited; a piece of a body
 * waits for every line that applies, and the shared line may stall. Pieces are counted as
 * received once they crossed, in total and per connection. Unlimited (the default), bytes
 * pass at once.
 */

export { MIN_UPLINK_MBIT } from './line';

/** Upload bytes one connection carried, numbered as the simulator accepted connections. */
export interface ConnectionBytes {
  connection: number;
  /**
   * The client's TCP port of this connection (the simulator's view of it): a client in the same
   * process tells which of its sockets carried these bytes, e.g. to compare an upload's progress
   * with what the service received of it. Undefined when the socket had no address any more.
   */
  clientPort: number | undefined;
  receivedBytes: number;
}

interface ConnectionLink {
  readonly connection: number;
  readonly clientPort: number | undefined;
  readonly line: Line;
  receivedBytes: number;
}

/** The shared line, the per-connection lines, and the counters; see the file comment. */
export class Uplink {
  readonly #shared: Line;
  #perConnectionMbit: number | undefined;
  readonly #bySocket = new WeakMap<object, ConnectionLink>();
  /** Every connection an upload call came on, in the order of their first upload. */
  readonly #links: ConnectionLink[] = [];
  #received = 0;
  /** The time the lines run on (line-time.ts). */
  readonly time: LineTime;

  constructor(
    options: {
      mbit?: number | undefined;
      perConnectionMbit?: number | undefined;
      time?: LineTime | undefined;
    } = {},
  ) {
    this.time = options.time ?? realLineTime;
    this.#shared = new Line(options.mbit);
    this.setPerConnectionMbit(options.perConnectionMbit);
  }

  /** Sets the shared line's rate in Mbit/s (10^6 bits a second); undefined or 0 removes the limit. */
  setMbit(mbit: number | undefined): void {
    this.#shared.setMbit(mbit);
  }

  /** The shared line's rate in Mbit/s, undefined when unlimited. */
  get mbit(): number | undefined {
    return this.#shared.mbit;
  }

  /**
   * Sets the rate of each connection's own line, connections already open included; undefined
   * or 0 removes the limit.
   */
  setPerConnectionMbit(mbit: number | undefined): void {
    checkMbit(mbit, 'the upload rate per connection');
    this.#perConnectionMbit = mbit || undefined;
    for (const link of this.#links) link.line.setMbit(mbit);
  }

  /** The rate of each connection's line in Mbit/s, undefined when unlimited. */
  get perConnectionMbit(): number | undefined {
    return this.#perConnectionMbit;
  }

  /**
   * The shared line carries nothing for `ms` from now (every connection's upload bytes stop,
   * the connections stay open and unread), then goes on at its rate. Replaces a stall under
   * way: 0 ends it now.
   */
  stall(ms: number): void {
    this.#shared.stall(ms, this.time.monotonic());
  }

  /** How much longer the shared line carries nothing (0 when it carries). */
  get stalledForMs(): number {
    return this.#shared.stalledForMs(this.time.monotonic());
  }

  /** Upload body bytes that crossed so far, every connection together. */
  get receivedBytes(): number {
    return this.#received;
  }

  /** Upload body bytes that crossed so far on each connection an upload call came on. */
  receivedByConnection(): ConnectionBytes[] {
    return this.#links.map(({ connection, clientPort, receivedBytes }) => ({
      connection,
      clientPort,
      receivedBytes,
    }));
  }

  /**
   * How an upload body on this socket (the simulator's connection number `connection`) crosses
   * the uplink: the shared line and the connection's own, with a fault's `hold` if any.
   */
  crossing(
    socket: Socket,
    connection: number,
    options: { hold?: BodyHold | undefined; onSilenced?: () => void } = {},
  ): BodyCrossing {
    const link = this.#linkOf(socket, connection);
    return new BodyCrossing({
      socket,
      time: this.time,
      lines: [this.#shared, link.line],
      counted: (bytes) => {
        this.#received += bytes;
        link.receivedBytes += bytes;
      },
      hold: options.hold,
      ...(options.onSilenced ? { onSilenced: options.onSilenced } : {}),
    });
  }

  #linkOf(socket: Socket, connection: number): ConnectionLink {
    let link = this.#bySocket.get(socket);
    if (!link) {
      link = {
        connection,
        clientPort: socket.remotePort,
        line: new Line(this.#perConnectionMbit),
        receivedBytes: 0,
      };
      this.#bySocket.set(socket, link);
      this.#links.push(link);
    }
    return link;
  }
}
