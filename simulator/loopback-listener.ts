import type { Server } from 'node:http';

/**
 * Starts and stops an HTTP server on 127.0.0.1, keeping its port across restarts so that a
 * client pointed at the base URL sees "connection refused" while stopped and the same
 * service once restarted. Start and stop calls run one after another, never interleaved.
 */
export class LoopbackListener {
  readonly #server: Server;
  #port: number;
  #listening = false;
  #transitions: Promise<void> = Promise.resolve();

  constructor(server: Server, port: number) {
    this.#server = server;
    this.#port = port;
  }

  /** The port, known once the first start has completed. */
  get port(): number {
    return this.#port;
  }

  /** Listens on 127.0.0.1 (no-op when already listening). */
  start(): Promise<void> {
    return this.#queue(async () => {
      if (this.#listening) return;
      await new Promise<void>((resolve, reject) => {
        const onError = (error: Error) => reject(error);
        this.#server.once('error', onError);
        this.#server.listen({ port: this.#port, host: '127.0.0.1' }, () => {
          this.#server.off('error', onError);
          resolve();
        });
      });
      const address = this.#server.address();
      if (address && typeof address === 'object') this.#port = address.port;
      this.#listening = true;
    });
  }

  /** Stops listening and destroys every open connection, idle keep-alive ones included. */
  stop(): Promise<void> {
    return this.#queue(async () => {
      if (!this.#listening) return;
      await new Promise<void>((resolve) => {
        this.#server.close(() => resolve());
        this.#server.closeAllConnections();
      });
      this.#listening = false;
    });
  }

  #queue(transition: () => Promise<void>): Promise<void> {
    const next = this.#transitions.then(transition);
    // A failed transition must not block the ones after it.
    this.#transitions = next.catch(() => undefined);
    return next;
  }
}
