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

/** The subprotocol the server selects; it never echoes the secret one. */
export const BRIDGE_PROTOCOL = 'desk-bridge.v1';

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

/** Page → host: one call of an invoke channel. */
export interface CallMessage {
  readonly id: number;
  readonly channel: string;
  readonly args: readonly unknown[];
  /** Only on dialog channels. */
  readonly answer?: DialogAnswer;
}

/** Host → page: the result of call `id`; `id` is null when the message could not be read at all. */
export interface ResultMessage {
  readonly id: number | null;
  readonly result: IpcResult<unknown>;
}

/** Host → page: an event for every connected page. */
export interface EventMessage {
  readonly event: EventChannel;
  readonly payload: unknown;
}
