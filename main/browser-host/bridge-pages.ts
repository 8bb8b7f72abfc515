/**
 * The bridge's conversation with its pages, once host-server.ts has let a page in: calls go
 * through `dispatchInvoke` exactly as IPC calls do, each run once by its request id however
 * often it arrives; events are numbered and replayed to a page that missed them; heartbeats
 * both ways find a connection that died without closing.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { WebSocket, type RawData } from 'ws';
import { z } from 'zod';
import type { DeskHandlers, EventChannel, IpcResult } from '../../shared/ipc/contract';
import {
  DIALOG_CHANNELS,
  HEARTBEAT_INTERVAL_MS,
  MAX_AWAITED_CALLS,
  REQUEST_ID_SHAPE,
  type HeartbeatMessage,
  type HelloMessage,
  type ResultMessage,
  type WelcomeMessage,
} from '../../shared/ipc/browser-host-protocol';
import { dispatchInvoke } from '../app/ipc-dispatch';
import type { Logger } from '../base/log';
import { createCallLedger, type Deliver } from './call-ledger';
import { createEventLog, type EventLogLimits } from './event-log';
import { withDialogAnswer } from './host-dialogs';

const PAGE_CLOSE_GRACE_MS = 1_000;

/** What tests may shorten or shrink; the defaults are the product's. */
export interface BridgeTuning {
  /** How often the host pings each page; a page silent for two of these is cut off. */
  readonly pingMs?: number;
  readonly events?: EventLogLimits;
}

export interface BridgePages {
  /** Takes a page the host let in. */
  accept(page: WebSocket): void;
  /** Numbers the event and sends it to every greeted page. */
  emit(event: EventChannel, payload: unknown): void;
  /** Closes every page (code 1001), cutting off those that do not answer. */
  close(): Promise<void>;
}

const INVALID_MESSAGE: IpcResult<never> = {
  ok: false,
  error: { code: 'invalid_message', message: 'The app could not read this request.' },
};
const INTERNAL_ERROR: IpcResult<never> = {
  ok: false,
  error: { code: 'internal_error', message: 'Something went wrong in the app. Nothing was lost; try again.' },
};
const HEARTBEAT_TEXT = JSON.stringify({ type: 'heartbeat' } satisfies HeartbeatMessage);

const requestId = z.string().max(96).regex(REQUEST_ID_SHAPE);

/** The envelopes only; `dispatchInvoke` parses a call's channel and arguments, as for IPC. */
const pageMessageSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('call'),
      id: requestId,
      channel: z.unknown(),
      args: z.unknown(),
      answer: z
        .object({ paths: z.array(z.string().trim().min(1).max(4096)).max(2000) })
        .strict()
        .optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('hello'),
      launch: z.string().max(64).optional(),
      seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
      awaiting: z.array(requestId).max(MAX_AWAITED_CALLS),
    })
    .strict(),
  z.object({ type: z.literal('heartbeat') }).strict(),
]);

function textOf(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

/** The id of a message that failed to parse, when it has a usable one, so its caller is answered. */
function idOf(message: unknown): string | null {
  if (typeof message !== 'object' || message === null) return null;
  const parsed = requestId.safeParse((message as { id?: unknown }).id);
  return parsed.success ? parsed.data : null;
}

function isDialogChannel(channel: unknown): boolean {
  return (DIALOG_CHANNELS as readonly unknown[]).includes(channel);
}

const resultText = (id: string | null, result: IpcResult<unknown>): string =>
  JSON.stringify({ type: 'result', id, result } satisfies ResultMessage);

export function createBridgePages(options: {
  readonly handlers: DeskHandlers;
  readonly logger: Logger;
  readonly tuning?: BridgeTuning;
}): BridgePages {
  const { handlers, logger } = options;
  const events = createEventLog(options.tuning?.events);
  const ledger = createCallLedger({ latestSeq: events.latest });
  /** Every open page, and whether it was heard from since the last ping. */
  const pages = new Map<WebSocket, { heard: boolean }>();
  /** The pages that said hello: events go to these, after what they missed. */
  const greeted = new Set<WebSocket>();
  let closed = false;

  // One function per page: a page that sends a running call again joins it once, so it is
  // answered once, not once per repetition (which a buggy page could multiply without bound).
  const deliverers = new WeakMap<WebSocket, Deliver>();
  const sendTo = (page: WebSocket): Deliver => {
    let deliver = deliverers.get(page);
    if (deliver === undefined) {
      deliver = (text) => {
        if (page.readyState === WebSocket.OPEN) page.send(text);
      };
      deliverers.set(page, deliver);
    }
    return deliver;
  };
  // Keyed with this launch's own random key: the arguments (a profile's secret among them) are
  // neither kept nor left guessable from what is kept.
  const fingerprintKey = randomBytes(32);
  const fingerprintOf = (channel: unknown, args: unknown, answer: unknown): string =>
    createHmac('sha256', fingerprintKey)
      .update(JSON.stringify([channel, args, answer ?? null]))
      .digest('base64url');

  async function dispatch(
    id: string,
    channel: unknown,
    args: unknown,
    answer: { readonly paths: readonly string[] } | undefined,
  ): Promise<ResultMessage> {
    if (answer && !isDialogChannel(channel)) return { type: 'result', id, result: INVALID_MESSAGE };
    // Whatever goes wrong is an answer too: the ledger must never keep a call running forever.
    const result = await Promise.resolve()
      .then(() => withDialogAnswer(answer, () => dispatchInvoke(handlers, channel, args, logger)))
      .catch((error: unknown) => {
        logger.log('error', 'bridge.dispatch_failed', {
          error: error instanceof Error ? error.name : typeof error,
        });
        return INTERNAL_ERROR;
      });
    return { type: 'result', id, result };
  }

  /**
   * A page (re)connecting: what it missed, in the order it happened — the events after the last
   * one it got, with the results of its awaited calls each after the event that preceded it —
   * then the welcome. Done in one go, so no live event can slip in between.
   */
  function greet(page: WebSocket, hello: HelloMessage): void {
    const deliver = sendTo(page);
    const sameLaunch = hello.launch === events.launch && hello.seq !== undefined;
    const missed = sameLaunch ? events.after(hello.seq ?? 0) : undefined;
    // A fresh page reads everything itself; one of this launch whose gap is gone must read anew.
    let resync = hello.launch !== undefined && missed === undefined;
    const resend: string[] = [];
    const results: { readonly afterSeq: number; readonly text: string }[] = [];
    if (sameLaunch) {
      for (const id of hello.awaiting) {
        const standing = ledger.standing(id, deliver);
        if (standing.state === 'unknown') resend.push(id);
        else if (standing.state === 'done') {
          // The page already has events from after this result: it cannot be put in its place.
          if (standing.afterSeq < (hello.seq ?? 0)) resync = true;
          results.push(standing);
        }
      }
    }
    const replay: { readonly order: number; readonly text: string }[] = [
      ...(resync ? [] : (missed ?? []).map((event) => ({ order: event.seq, text: event.text }))),
      // Half a step after the event it followed, before the next.
      ...results.map((result) => ({ order: result.afterSeq + 0.5, text: result.text })),
    ].sort((a, b) => a.order - b.order);
    for (const { text } of replay) deliver(text);
    greeted.add(page);
    const welcome: WelcomeMessage = {
      type: 'welcome',
      launch: events.launch,
      seq: events.latest(),
      resync,
      resend,
    };
    deliver(JSON.stringify(welcome));
    if (hello.launch !== undefined) {
      logger.log('info', 'bridge.page_resumed', {
        replayed: replay.length,
        resync,
        awaiting: hello.awaiting.length,
        resend: resend.length,
      });
    }
  }

  function onMessage(page: WebSocket, data: RawData, isBinary: boolean): void {
    const deliver = sendTo(page);
    if (isBinary) return deliver(resultText(null, INVALID_MESSAGE));
    let message: unknown;
    try {
      message = JSON.parse(textOf(data));
    } catch {
      return deliver(resultText(null, INVALID_MESSAGE));
    }
    const parsed = pageMessageSchema.safeParse(message);
    if (!parsed.success) {
      logger.log('warn', 'bridge.invalid_message', { reason: 'shape' });
      return deliver(resultText(idOf(message), INVALID_MESSAGE));
    }
    const envelope = parsed.data;
    if (envelope.type === 'heartbeat') return deliver(HEARTBEAT_TEXT);
    if (envelope.type === 'hello') {
      if (greeted.has(page)) {
        logger.log('warn', 'bridge.invalid_message', { reason: 'second_hello' });
        return deliver(resultText(null, INVALID_MESSAGE));
      }
      return greet(page, envelope);
    }
    const { id, channel, args, answer } = envelope;
    ledger.take(id, fingerprintOf(channel, args, answer), deliver, () => dispatch(id, channel, args, answer));
  }

  function accept(page: WebSocket): void {
    pages.set(page, { heard: true });
    logger.log('info', 'bridge.page_connected', { pages: pages.size });
    page.on('message', (data, isBinary) => {
      const liveness = pages.get(page);
      if (liveness) liveness.heard = true;
      onMessage(page, data, isBinary);
    });
    page.on('pong', () => {
      const liveness = pages.get(page);
      if (liveness) liveness.heard = true;
    });
    // A message over the size limit is reported here before ws closes the connection with 1009.
    page.on('error', (error) => logger.log('warn', 'bridge.page_error', { error: error.name }));
    page.on('close', (code) => {
      pages.delete(page);
      greeted.delete(page);
      logger.log('info', 'bridge.page_disconnected', { code, pages: pages.size });
    });
  }

  // A page that answered no ping for a whole interval is gone without having closed: cut it off.
  const pingMs = options.tuning?.pingMs ?? HEARTBEAT_INTERVAL_MS;
  let lastRound = performance.now();
  const pinger = setInterval(() => {
    const at = performance.now();
    // A late round means this process stalled (a breakpoint, a long synchronous step): the
    // pages' answers may be waiting unread behind this very timer, so none is judged silent now.
    const judge = at - lastRound < pingMs * 1.5;
    lastRound = at;
    for (const [page, liveness] of pages) {
      if (page.readyState !== WebSocket.OPEN) continue;
      if (judge && !liveness.heard) {
        logger.log('warn', 'bridge.page_silent', {});
        page.terminate();
        continue;
      }
      liveness.heard = false;
      page.ping();
    }
  }, pingMs);
  pinger.unref();

  return {
    accept,
    emit(event, payload) {
      if (closed) return;
      const { text } = events.record(event, payload);
      for (const page of greeted) sendTo(page)(text);
    },
    async close() {
      closed = true;
      clearInterval(pinger);
      await Promise.all(
        [...pages.keys()].map(async (page) => {
          if (page.readyState === WebSocket.CLOSED) return;
          const ended = once(page, 'close');
          page.close(1001, 'The app is closing.');
          // A page that does not answer the closing handshake is cut off.
          const cutOff = setTimeout(() => page.terminate(), PAGE_CLOSE_GRACE_MS);
          await ended;
          clearTimeout(cutOff);
        }),
      );
    },
  };
}
