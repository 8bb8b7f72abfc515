/**
 * What the service client needs of the network: one exchange at a time, every failure a value.
 * The HTTP one (http-transport.ts) is the client's default; tests give a scripted one, so the
 * rules on top (retries, idempotency, token renewal: call-runner.ts) are checked without a server.
 */
import type { Readable } from 'node:stream';

/** One HTTP exchange, described without any knowledge of the signing service. */
export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** A string, or a factory giving a fresh stream for each attempt (uploads). */
  readonly body?: string | (() => Readable);
  /**
   * How long the service has to answer once the whole request was handed to the connection
   * (ms). For a string body that is the whole exchange; a streamed body sends first (`stallMs`).
   */
  readonly timeoutMs: number;
  /**
   * For a streamed body: the attempt fails when the connection takes none of it for this long
   * (ms), however long the whole body takes. Absent: `timeoutMs` bounds the whole exchange.
   */
  readonly stallMs?: number;
  /**
   * For a streamed body: told the bytes the connection has taken so far, each time it takes a
   * slice (`UPLOAD_SLICE_BYTES`) and once with 0 when the attempt begins.
   */
  readonly onBodySent?: (sentBytes: number) => void;
  readonly signal?: AbortSignal;
}

export type HttpOutcome =
  | {
      readonly kind: 'answered';
      readonly status: number;
      readonly headers: Readonly<Record<string, string | undefined>>;
      readonly text: string;
    }
  | {
      /** The request could not be built from local data (its file vanished, changed size or could not be opened). */
      readonly kind: 'local';
      readonly errorCode: string;
    }
  | {
      readonly kind: 'network';
      /** False when the request certainly never reached the service (refused, unresolvable). */
      readonly mayHaveReachedService: boolean;
      readonly timedOut: boolean;
      /** An error code such as ECONNREFUSED; never a URL, header or body. */
      readonly errorCode: string;
    };

/**
 * Sends one attempt of a request and says how it ended. Aborting the request's signal rejects
 * with its reason; every other failure is an outcome, never a throw.
 */
export interface Transport {
  send(request: HttpRequest): Promise<HttpOutcome>;
  /** Lets go of what it holds (pooled connections); nothing is sent afterwards. */
  close(): Promise<void>;
}
