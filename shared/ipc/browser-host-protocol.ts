/**
 * The browser host's wire protocol, shared by the server (host-server.ts) and the page-side
 * client (renderer/browser-host-bridge.ts): plain constants and types, no Node or DOM imports, so both bundles
 * can import it. One WebSocket per page carries every call and every event as JSON text.
 */
import type { EventChannel, IpcResult } from './contract';

/** The WebSocket endpoint of the bridge. */
export const BRIDGE_PATH = '/bridge';

/** The script the host injects into index.html, which defines `window.desk`. */
export const BRIDGE_SCRIPT_PATH = '/desk-bridge.js';

/**
 * The subprotocol the server selects; it never echoes the secret one. v2: request ids, numbered
 * events and heartbeats (a v1 page is refused rather than misunderstood).
 */
export const BRIDGE_PROTOCOL = 'desk-bridge.v2';

/**
 * The per-launch secret travels as a second offered subprotocol, `desk-secret.<secret>`, so it
 * never appears in a URL (request lines are what logs, proxies and error messages print). A
 * base64url secret only has characters a subprotocol token allows.
 */
export const SECRET_PROTOCOL_PREFIX = 'desk-secret.';

/** The fragment parameter that carries the secret to the page (`/#secret=…`). */
export const SECRET_HASH_PARAMETER = 'secret';

/** Larger messages close the connection (WebSocket close code 1009); nothing legitimate is near. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * The invoke channels whose call carries what the user answered in the page's prompt: files to
 * read only. `report.export` is not one: the host chooses where a report is written (in the
 * Downloads folder), so a page cannot make it write anywhere; an answer sent with it is refused.
 */
export const DIALOG_CHANNELS = ['dialogs.pickPdfs', 'dialogs.pickFolder', 'dialogs.pickManifest'] as const;

/**
 * What the user typed in the page's stand-in for a native open dialog: paths on this computer
 * (absolute, `~/…`, or relative to the folder the host was started in). Empty means cancelled.
 */
export interface DialogAnswer {
  readonly paths: readonly string[];
}

/**
 * Heartbeats, since a connection can die without closing (a suspended laptop, a dropped network
 * path): the page sends one this often and the host answers it; the host pings the page (a
 * WebSocket ping, which browsers answer by themselves) as often.
 */
export const HEARTBEAT_INTERVAL_MS = 5_000;

/**
 * A line that carried nothing back for this long after the page's heartbeat is dead: the page
 * closes it and connects again. The host ends a page that answered none of its pings for two
 * intervals.
 */
export const SILENCE_LIMIT_MS = 15_000;

/**
 * How long the page waits for the answer to a call it sent, resending it over each new
 * connection, before it gives up with `bridge_no_answer`. Longer than the slowest legitimate
 * handler: opening a ceremony may wait up to 2 min for the keychain to be unlocked, then make up
 * to six 30 s attempts at the service with their back-off (about 3.5 min). The host keeps a
 * call's result this long after answering it, for a page that lost the answer to ask again.
 */
export const CALL_DEADLINE_MS = 10 * 60_000;

/**
 * A request id: the page's own random id (one per page load) and its call counter, `<page>.<n>`.
 * Unique across pages and reloads, so the host can tell a resent call from a new one.
 */
export const REQUEST_ID_SHAPE = /^[A-Za-z0-9_-]{16,64}\.[0-9]{1,15}$/;

/** At most this many calls can be awaited at once by one page's greeting (a bound on the message). */
export const MAX_AWAITED_CALLS = 10_000;

/** Page → host, first on every connection: where the page stands, so nothing in between is lost. */
export interface HelloMessage {
  readonly type: 'hello';
  /** The host launch the page last heard from, and the last event it got; absent on a fresh page. */
  readonly launch?: string;
  readonly seq?: number;
  /** Calls the page sent and has no answer to (the connection broke). */
  readonly awaiting: readonly string[];
}

/** Page → host: one call of an invoke channel. `id` is a request id (REQUEST_ID_SHAPE). */
export interface CallMessage {
  readonly type: 'call';
  readonly id: string;
  readonly channel: string;
  readonly args: readonly unknown[];
  /** Only on dialog channels. */
  readonly answer?: DialogAnswer;
}

/** Both ways: "still here". The host answers each of the page's with one of its own. */
export interface HeartbeatMessage {
  readonly type: 'heartbeat';
}

/**
 * Host → page, the answer to a hello, sent after the results and events the page missed (if
 * they could be replayed). `resync`: events were missed that cannot be replayed (too many, or
 * another launch of the host): the page must read its state anew. `resend`: the awaited calls
 * the host never received, for the page to send again; the others are answered (or will be).
 */
export interface WelcomeMessage {
  readonly type: 'welcome';
  readonly launch: string;
  /** The number of the host's latest event. */
  readonly seq: number;
  readonly resync: boolean;
  readonly resend: readonly string[];
}

/** Host → page: the result of call `id`; `id` is null when the message could not be read at all. */
export interface ResultMessage {
  readonly type: 'result';
  readonly id: string | null;
  readonly result: IpcResult<unknown>;
}

/** Host → page: an event for every connected page, numbered from 1 within a launch of the host. */
export interface EventMessage {
  readonly type: 'event';
  readonly seq: number;
  readonly event: EventChannel;
  readonly payload: unknown;
}

export type PageMessage = HelloMessage | CallMessage | HeartbeatMessage;
export type HostMessage = WelcomeMessage | ResultMessage | EventMessage | HeartbeatMessage;
