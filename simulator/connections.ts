import type { Socket } from 'node:net';

/**
 * The connections the simulator accepted, numbered, with the sequence number of their
 * acceptance and the number of calls each carried: politeness uses them to tell a call that
 * was already on its way when an answer was written from one sent after it (politeness.ts).
 * Connections a silent fault holds are counted apart: nothing more will arrive on them.
 */

/** One accepted connection, as the politeness rules see it. */
export interface ConnectionInfo {
  /** A number unique within the simulator. */
  readonly id: number;
  /** The state's sequence number when the connection was accepted. */
  readonly acceptedSequence: number;
  /** Calls received on it so far. */
  calls: number;
}

/** Numbers connections as they are accepted and counts the calls on each. */
export class ConnectionRegistry {
  readonly #bySocket = new WeakMap<object, ConnectionInfo>();
  #lastId = 0;
  readonly #nextSequence: () => number;
  readonly #silenced = new Set<Socket>();

  constructor(nextSequence: () => number) {
    this.#nextSequence = nextSequence;
  }

  /** Records a connection when the server accepts it. */
  accept(socket: object): void {
    this.#lastId += 1;
    this.#bySocket.set(socket, { id: this.#lastId, acceptedSequence: this.#nextSequence(), calls: 0 });
  }

  /** Counts one more call on the socket's connection and returns it (registering it if unseen). */
  callOn(socket: object): ConnectionInfo {
    let info = this.#bySocket.get(socket);
    if (!info) {
      this.accept(socket);
      info = this.#bySocket.get(socket) as ConnectionInfo;
    }
    info.calls += 1;
    return info;
  }

  /**
   * Marks the socket as held by a silent fault until it closes: the simulator will never read
   * it again nor answer on it, and does not see its client close it (a socket that is not read
   * does not learn of the client's FIN until the bytes before it are read).
   */
  silence(socket: Socket): void {
    if (socket.destroyed || this.#silenced.has(socket)) return;
    this.#silenced.add(socket);
    socket.once('close', () => this.#silenced.delete(socket));
  }

  /** Open connections a silent fault holds (each with its one unanswered call). */
  get silencedCount(): number {
    return this.#silenced.size;
  }
}
