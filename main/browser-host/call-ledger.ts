/**
 * The calls this launch of the host received, by request id, so a call is run once however many
 * times it arrives: a page whose connection broke before the answer came sends the call again
 * with the same id, and gets the answer of the first run (or waits for it) instead of creating
 * a second batch.
 *
 * Why the bounds are safe: a page gives up on a call CALL_DEADLINE_MS after it first sent it,
 * and never asks again after that. A result is kept CALL_DEADLINE_MS from when it was ready,
 * which is later than the page's first send, so every result a page can still ask for is kept.
 * Past MAX_RESULT_BYTES the oldest results' texts are dropped but their ids kept: a page asking
 * for one is told its answer was lost (`bridge_disconnected`), never given a second run. Past
 * MAX_CALLS (over 80 calls a second for the whole deadline, far beyond what one person's page
 * makes) the oldest ids are forgotten too.
 *
 * An id names one request: the same id with another request (channel, arguments or dialog
 * answer, compared by their fingerprint) is refused, as an idempotency key reused with another
 * body is, rather than answered with a result that is not its own.
 */
import { CALL_DEADLINE_MS, type ResultMessage } from '../../shared/ipc/browser-host-protocol';

const MAX_RESULT_BYTES = 32 * 1024 * 1024;
const MAX_CALLS = 50_000;

/** Sends a result message's text to one page (if it is still connected). */
export type Deliver = (text: string) => void;

type Entry =
  | { readonly state: 'running'; readonly fingerprint: string; readonly waiting: Set<Deliver> }
  | {
      readonly state: 'done';
      readonly fingerprint: string;
      /** Undefined once dropped for room. */
      text: string | undefined;
      /** The number of the host's latest event when the result was ready: it goes after that one. */
      readonly afterSeq: number;
      readonly doneAt: number;
    };

/** What the ledger knows of a request id. */
export type CallStanding =
  | { readonly state: 'unknown' }
  | { readonly state: 'running' }
  | { readonly state: 'done'; readonly text: string; readonly afterSeq: number };

export interface CallLedgerOptions {
  /** The number of the host's latest event. */
  readonly latestSeq: () => number;
  readonly retentionMs?: number;
  readonly maxResultBytes?: number;
  readonly maxCalls?: number;
  readonly now?: () => number;
}

export interface CallLedger {
  /**
   * Call `id`: runs `run` the first time, else joins the running call or answers from its kept
   * result. `deliver` gets the result message's text once. `fingerprint` stands for the request
   * (never its arguments themselves, which may hold a secret): another one under a known id is
   * refused.
   */
  take(id: string, fingerprint: string, deliver: Deliver, run: () => Promise<ResultMessage>): void;
  /** Where call `id` stands; a running one also answers `deliver` when it ends. */
  standing(id: string, deliver: Deliver): CallStanding;
}

/** The answer given for a call whose result was dropped for room: it may have been applied. */
function lostAnswer(id: string): string {
  const message: ResultMessage = {
    type: 'result',
    id,
    result: {
      ok: false,
      error: {
        code: 'bridge_disconnected',
        message:
          'The connection to the app was lost before it answered. Check the result, then try again if needed.',
      },
    },
  };
  return JSON.stringify(message);
}

/** The answer given for an id already used for another request: it runs nothing. */
function reusedAnswer(id: string): string {
  const message: ResultMessage = {
    type: 'result',
    id,
    result: {
      ok: false,
      error: {
        code: 'request_id_reused',
        message: 'This request was not run: its id was already used for another request. Try again.',
      },
    },
  };
  return JSON.stringify(message);
}

export function createCallLedger(options: CallLedgerOptions): CallLedger {
  const retentionMs = options.retentionMs ?? CALL_DEADLINE_MS;
  const maxResultBytes = options.maxResultBytes ?? MAX_RESULT_BYTES;
  const maxCalls = options.maxCalls ?? MAX_CALLS;
  // Monotonic, as the page's timers are: a wall clock that jumps forward (a laptop waking, the
  // time set anew) would forget results the page may still ask for, and run their calls again.
  const now = options.now ?? (() => performance.now());
  const entries = new Map<string, Entry>();
  // Ended calls, oldest first: what the bounds drop from.
  const ended = new Set<string>();
  let resultBytes = 0;

  const prune = (): void => {
    const at = now();
    for (const id of ended) {
      const entry = entries.get(id);
      if (entry?.state !== 'done') {
        ended.delete(id);
        continue;
      }
      const expired = at - entry.doneAt >= retentionMs;
      if (expired || ended.size > maxCalls) {
        resultBytes -= entry.text?.length ?? 0;
        entries.delete(id);
        ended.delete(id);
        continue;
      }
      if (resultBytes <= maxResultBytes) break;
      if (entry.text !== undefined) {
        resultBytes -= entry.text.length;
        entry.text = undefined;
      }
    }
  };

  const finish = (id: string, message: ResultMessage): void => {
    const entry = entries.get(id);
    if (entry?.state !== 'running') return;
    const text = JSON.stringify(message);
    entries.set(id, {
      state: 'done',
      fingerprint: entry.fingerprint,
      text,
      afterSeq: options.latestSeq(),
      doneAt: now(),
    });
    ended.add(id);
    resultBytes += text.length;
    for (const deliver of entry.waiting) deliver(text);
    prune();
  };

  return {
    take(id, fingerprint, deliver, run) {
      const entry = entries.get(id);
      if (entry !== undefined && entry.fingerprint !== fingerprint) {
        deliver(reusedAnswer(id));
        return;
      }
      if (entry?.state === 'running') {
        entry.waiting.add(deliver);
        return;
      }
      if (entry?.state === 'done') {
        deliver(entry.text ?? lostAnswer(id));
        return;
      }
      prune();
      entries.set(id, { state: 'running', fingerprint, waiting: new Set([deliver]) });
      void run().then((message) => finish(id, message));
    },
    standing(id, deliver) {
      const entry = entries.get(id);
      if (entry === undefined) return { state: 'unknown' };
      if (entry.state === 'running') {
        entry.waiting.add(deliver);
        return { state: 'running' };
      }
      return { state: 'done', text: entry.text ?? lostAnswer(id), afterSeq: entry.afterSeq };
    },
  };
}
