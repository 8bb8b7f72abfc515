/**
 * The page's one connection to the browser host, kept so that no call is lost: every call
 * carries a request id and is sent again with it over the next connection when the answer did
 * not come (the host runs it once); events are numbered, and the host replays those the page
 * missed, or says the page must read its state anew; heartbeats find a connection that died
 * without closing. Runs in a browser or, for tests, in Node with any WebSocket-like socket.
 */
import type { ConnectionChange, Subscribe } from '../../shared/ipc/bridge';
import {
  CALL_DEADLINE_MS,
  HEARTBEAT_INTERVAL_MS,
  SILENCE_LIMIT_MS,
  type CallMessage,
  type DialogAnswer,
  type HelloMessage,
  type WelcomeMessage,
} from '../../shared/ipc/browser-host-protocol';
import type { EventChannel, InvokeChannel, IpcResult } from '../../shared/ipc/contract';
import type { BridgeErrorCode } from '../../shared/ipc/error-codes';

type Result = IpcResult<unknown>;

/** The part of the WebSocket API the connection uses (the browser's, or ws's in Node). */
export interface BridgeSocket {
  readonly readyState: number;
  send(text: string): void;
  close(): void;
  addEventListener(type: 'open' | 'close', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { readonly data: unknown }) => void): void;
}

export interface BridgeTiming {
  /** How often the page sends a heartbeat while connected. */
  readonly heartbeatMs: number;
  /** A connection that carried nothing back this long after a heartbeat (or to open) is dead. */
  readonly silenceMs: number;
  /** A sent call not answered by then fails with `bridge_no_answer`. */
  readonly callDeadlineMs: number;
  /** A call made while the host is away waits this long for it to come back. */
  readonly queueTimeoutMs: number;
  readonly reconnectFirstMs: number;
  readonly reconnectLongestMs: number;
}

export const DEFAULT_BRIDGE_TIMING: BridgeTiming = {
  heartbeatMs: HEARTBEAT_INTERVAL_MS,
  silenceMs: SILENCE_LIMIT_MS,
  callDeadlineMs: CALL_DEADLINE_MS,
  queueTimeoutMs: 15_000,
  reconnectFirstMs: 250,
  reconnectLongestMs: 5_000,
};

export interface BridgeConnectionOptions {
  /** Opens a new socket to the host's bridge. */
  readonly openSocket: () => BridgeSocket;
  readonly timing?: Partial<BridgeTiming>;
}

export interface BridgeConnection {
  call(channel: InvokeChannel, args: readonly unknown[], answer?: DialogAnswer): Promise<Result>;
  readonly subscribe: Subscribe;
  /** See HostBridge.onConnectionChange. */
  onConnectionChange(listener: (change: ConnectionChange) => void): () => void;
  /** Stops for good: closes the socket, stops every timer (tests). */
  dispose(): void;
}

const SOCKET_OPEN = 1;

const failure = (code: BridgeErrorCode, message: string): Result => ({ ok: false, error: { code, message } });
const UNAVAILABLE = failure(
  'bridge_unavailable',
  'The app is not reachable. Check that the browser host is running.',
);
const NO_ANSWER = failure(
  'bridge_no_answer',
  'The app did not answer in time. Check the result, then try again if needed.',
);
const DISCONNECTED = failure(
  'bridge_disconnected',
  'The connection to the app was lost before it answered. Check the result, then try again if needed.',
);

/** 16 random bytes as base64url: this page load's part of every request id. */
function pageId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return Array.from(crypto.getRandomValues(new Uint8Array(22)), (byte) => alphabet[byte % 64]).join('');
}

interface PendingCall {
  readonly text: string;
  sent: boolean;
  readonly resolve: (result: Result) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** Connects at once, and again whenever the connection is lost, until disposed. */
export function createBridgeConnection(options: BridgeConnectionOptions): BridgeConnection {
  const timing: BridgeTiming = { ...DEFAULT_BRIDGE_TIMING, ...options.timing };
  const requestPrefix = pageId();
  const pending = new Map<string, PendingCall>();
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const connectionListeners = new Set<(change: ConnectionChange) => void>();
  /** Whether the host answers; undefined until the first attempt ends. */
  let connected: boolean | undefined;
  /** The current socket, and whether the host welcomed the page on it. */
  let socket: BridgeSocket | undefined;
  let welcomed = false;
  let launch: string | undefined;
  let lastSeq = 0;
  /** A call of this page failed for want of the host: what it would have read must be read anew. */
  let lostSomething = false;
  let nextCall = 1;
  let failedAttempts = 0;
  let disposed = false;
  let unansweredSince: number | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let handshake: ReturnType<typeof setTimeout> | undefined;
  let reconnect: ReturnType<typeof setTimeout> | undefined;

  const settle = (id: string, result: Result): void => {
    const call = pending.get(id);
    if (!call) return;
    pending.delete(id);
    clearTimeout(call.timer);
    if (result === UNAVAILABLE || result === NO_ANSWER || result === DISCONNECTED) lostSomething = true;
    call.resolve(result);
  };

  const send = (text: string): void => {
    if (socket?.readyState === SOCKET_OPEN) socket.send(text);
  };

  const sendQueued = (): void => {
    if (!welcomed) return;
    for (const [id, call] of pending) {
      if (call.sent) continue;
      send(call.text);
      call.sent = true;
      // From its first sending on, the call waits for its answer, over as many connections as it takes.
      clearTimeout(call.timer);
      call.timer = setTimeout(() => settle(id, NO_ANSWER), timing.callDeadlineMs);
    }
  };

  const deliver = (event: string, payload: unknown): void => {
    for (const listener of listeners.get(event) ?? []) {
      try {
        listener(payload);
      } catch (error) {
        // One failing listener must not keep the event from the others; the console still shows it.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  };

  const tell = (change: ConnectionChange): void => {
    connected = change.connected;
    for (const listener of connectionListeners) listener(change);
  };

  const onWelcome = (welcome: WelcomeMessage): void => {
    clearTimeout(handshake);
    welcomed = true;
    failedAttempts = 0;
    const restarted = launch !== undefined && welcome.launch !== launch;
    // Another launch of the host knows nothing of this page's calls: they may have run, or not.
    if (restarted) for (const [id, call] of pending) if (call.sent) settle(id, DISCONNECTED);
    launch = welcome.launch;
    lastSeq = welcome.seq;
    for (const id of restarted ? [] : welcome.resend) {
      const call = pending.get(id);
      if (call?.sent) send(call.text);
    }
    sendQueued();
    const resync = welcome.resync || restarted || lostSomething;
    lostSomething = false;
    if (connected !== true || resync) tell({ connected: true, resync });
  };

  const onMessage = (data: unknown): void => {
    unansweredSince = undefined;
    if (typeof data !== 'string') return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const fields = message as Record<string, unknown>;
    if (fields.type === 'event' && typeof fields.event === 'string' && typeof fields.seq === 'number') {
      // A replayed event the page already had is not delivered twice.
      if (fields.seq <= lastSeq) return;
      lastSeq = fields.seq;
      deliver(fields.event, fields.payload);
    } else if (fields.type === 'result' && typeof fields.id === 'string') {
      if (typeof fields.result === 'object' && fields.result !== null)
        settle(fields.id, fields.result as Result);
    } else if (fields.type === 'welcome') {
      onWelcome(message as WelcomeMessage);
    }
  };

  /** No line to the host: say so, and try again after a pause. */
  const down = (): void => {
    if (connected !== false) tell({ connected: false });
    if (disposed) return;
    failedAttempts += 1;
    const delay = Math.min(
      timing.reconnectLongestMs,
      timing.reconnectFirstMs * 2 ** Math.min(failedAttempts - 1, 8),
    );
    reconnect = setTimeout(connect, delay);
  };

  /** The line is down (closed, or silent too long). */
  const lose = (lost: BridgeSocket): void => {
    if (socket !== lost) return;
    socket = undefined;
    welcomed = false;
    clearInterval(heartbeat);
    clearTimeout(handshake);
    // A silent socket's close may be confirmed only a minute later: the page does not wait for it.
    try {
      lost.close();
    } catch {
      // Already closed.
    }
    down();
  };

  function connect(): void {
    let opened: BridgeSocket;
    try {
      opened = options.openSocket();
    } catch {
      return down();
    }
    socket = opened;
    unansweredSince = undefined;
    // Opening and the welcome must come within the silence limit too: a line can hang there.
    handshake = setTimeout(() => lose(opened), timing.silenceMs);
    opened.addEventListener('open', () => {
      if (socket !== opened) return;
      const awaiting = [...pending].filter(([, call]) => call.sent).map(([id]) => id);
      const hello: HelloMessage =
        launch === undefined
          ? { type: 'hello', awaiting: [] }
          : {
              type: 'hello',
              launch,
              seq: lastSeq,
              awaiting,
            };
      send(JSON.stringify(hello));
      heartbeat = setInterval(() => {
        // Elapsed time, never the wall clock: set back, it would hide a silent line for as long.
        if (unansweredSince !== undefined && performance.now() - unansweredSince >= timing.silenceMs) {
          lose(opened);
          return;
        }
        send('{"type":"heartbeat"}');
        unansweredSince ??= performance.now();
      }, timing.heartbeatMs);
    });
    opened.addEventListener('message', (event) => {
      if (socket === opened) onMessage(event.data);
    });
    opened.addEventListener('close', () => lose(opened));
  }

  const call = (channel: InvokeChannel, args: readonly unknown[], answer?: DialogAnswer): Promise<Result> => {
    if (disposed) return Promise.resolve(UNAVAILABLE);
    // JSON turns a trailing `undefined` into null, which an optional argument's schema refuses;
    // Electron's structured clone keeps it, and dropping it means the same.
    const sentArgs = [...args];
    while (sentArgs.length > 0 && sentArgs.at(-1) === undefined) sentArgs.pop();
    const id = `${requestPrefix}.${nextCall}`;
    nextCall += 1;
    const envelope: CallMessage = {
      type: 'call',
      id,
      channel,
      args: sentArgs,
      ...(answer ? { answer } : {}),
    };
    let text: string;
    try {
      text = JSON.stringify(envelope);
    } catch {
      return Promise.resolve(failure('invalid_arguments', 'Invalid request: the arguments cannot be sent.'));
    }
    return new Promise((resolve) => {
      // Not sent yet: it waits for the host a shorter while (sendQueued gives it the deadline).
      const timer = setTimeout(() => settle(id, UNAVAILABLE), timing.queueTimeoutMs);
      pending.set(id, { text, sent: false, resolve, timer });
      sendQueued();
    });
  };

  const subscribe: Subscribe = (event: EventChannel, listener) => {
    const forEvent = listeners.get(event) ?? new Set();
    listeners.set(event, forEvent);
    // Wrapped so the same function subscribed twice is two subscriptions, as with ipcRenderer.
    const subscription = (payload: unknown) => listener(payload);
    forEvent.add(subscription);
    return () => {
      forEvent.delete(subscription);
    };
  };

  connect();
  return {
    call,
    subscribe,
    onConnectionChange(listener) {
      connectionListeners.add(listener);
      if (connected === false) listener({ connected: false });
      return () => {
        connectionListeners.delete(listener);
      };
    },
    dispose() {
      disposed = true;
      clearTimeout(reconnect);
      if (socket) lose(socket);
      for (const id of [...pending.keys()]) settle(id, UNAVAILABLE);
    },
  };
}
