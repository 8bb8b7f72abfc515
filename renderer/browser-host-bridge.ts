/**
 * The page side of the browser host (bundled as desk-bridge.js, an IIFE the host injects before
 * the renderer's own script). It defines `window.desk` with the very API the Electron preload
 * exposes, built by the same `createBridge`, over one WebSocket to the host. Browser code only:
 * no Node imports.
 */
import { resolveLanguage } from '../shared/i18n/languages';
import { createTranslator, type Translator } from '../shared/i18n/translator';
import { createBridge, type DeskBridge, type HostBridge, type Subscribe } from '../shared/ipc/bridge';
import type { ChannelResult, InvokeChannel, IpcResult } from '../shared/ipc/contract';
import {
  BRIDGE_PATH,
  BRIDGE_PROTOCOL,
  SECRET_HASH_PARAMETER,
  SECRET_PROTOCOL_PREFIX,
  type CallMessage,
  type DialogAnswer,
} from '../shared/ipc/browser-host-protocol';

/**
 * Kept for this tab only, so a reload (a normal development step) still finds the secret after
 * the fragment was cleared. Only this origin's pages can read it, and they are the app itself.
 */
const SECRET_STORAGE_KEY = 'desk-bridge.secret';
/** A call made while the bridge is down waits this long for it to come back. */
const QUEUE_TIMEOUT_MS = 15_000;
const RECONNECT_FIRST_MS = 250;
const RECONNECT_LONGEST_MS = 5_000;
const SECRET_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;

type Result = IpcResult<unknown>;

const failure = (code: string, message: string): Result => ({ ok: false, error: { code, message } });
const NO_SECRET = failure(
  'bridge_unavailable',
  'This page was opened without its key. Open the address the browser host printed when it started.',
);
const UNAVAILABLE = failure(
  'bridge_unavailable',
  'The app is not reachable. Check that the browser host is running.',
);
const DISCONNECTED = failure(
  'bridge_disconnected',
  'The connection to the app was lost before it answered. Check the result, then try again if needed.',
);

/** Takes the secret out of the fragment (and so out of the address bar and history). */
function takeSecret(): string | undefined {
  const parameters = new URLSearchParams(location.hash.slice(1));
  const fromHash = parameters.get(SECRET_HASH_PARAMETER);
  if (fromHash !== null) {
    parameters.delete(SECRET_HASH_PARAMETER);
    const rest = parameters.toString();
    history.replaceState(
      history.state,
      '',
      `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`,
    );
    if (SECRET_SHAPE.test(fromHash)) {
      try {
        sessionStorage.setItem(SECRET_STORAGE_KEY, fromHash);
      } catch {
        // Storage may be disabled; the page still works until it is reloaded.
      }
      return fromHash;
    }
    return undefined;
  }
  try {
    const stored = sessionStorage.getItem(SECRET_STORAGE_KEY);
    return stored !== null && SECRET_SHAPE.test(stored) ? stored : undefined;
  } catch {
    return undefined;
  }
}

interface PendingCall {
  readonly message: string;
  sent: boolean;
  readonly resolve: (result: Result) => void;
  readonly timer: number;
}

function installDeskBridge(): void {
  const secret = takeSecret();
  const pending = new Map<number, PendingCall>();
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const connectionListeners = new Set<(connected: boolean) => void>();
  /** Whether the backend answers; undefined until the first attempt ends. */
  let connected: boolean | undefined;
  let socket: WebSocket | undefined;
  let nextId = 1;
  let failedAttempts = 0;

  const settle = (id: number, result: Result): void => {
    const call = pending.get(id);
    if (!call) return;
    pending.delete(id);
    clearTimeout(call.timer);
    call.resolve(result);
  };

  const flush = (): void => {
    if (socket?.readyState !== WebSocket.OPEN) return;
    for (const call of pending.values()) {
      if (call.sent) continue;
      socket.send(call.message);
      call.sent = true;
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

  const onMessage = (data: unknown): void => {
    if (typeof data !== 'string') return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const fields = message as Record<string, unknown>;
    if (typeof fields.event === 'string') deliver(fields.event, fields.payload);
    else if (typeof fields.id === 'number' && typeof fields.result === 'object' && fields.result !== null) {
      settle(fields.id, fields.result as Result);
    }
  };

  const setConnected = (now: boolean): void => {
    if (connected === now) return;
    connected = now;
    for (const listener of connectionListeners) listener(now);
  };

  const connect = (): void => {
    if (secret === undefined) {
      setConnected(false);
      return;
    }
    const opened = new WebSocket(`ws://${location.host}${BRIDGE_PATH}`, [
      BRIDGE_PROTOCOL,
      `${SECRET_PROTOCOL_PREFIX}${secret}`,
    ]);
    socket = opened;
    opened.addEventListener('open', () => {
      failedAttempts = 0;
      setConnected(true);
      flush();
    });
    opened.addEventListener('message', (event) => onMessage(event.data));
    opened.addEventListener('close', () => {
      socket = undefined;
      setConnected(false);
      // A call already sent may or may not have run: say so rather than send it twice.
      for (const [id, call] of pending) if (call.sent) settle(id, DISCONNECTED);
      failedAttempts += 1;
      const delay = Math.min(RECONNECT_LONGEST_MS, RECONNECT_FIRST_MS * 2 ** Math.min(failedAttempts - 1, 8));
      setTimeout(connect, delay);
    });
  };

  const call = (channel: InvokeChannel, args: readonly unknown[], answer?: DialogAnswer): Promise<Result> => {
    if (secret === undefined) return Promise.resolve(NO_SECRET);
    // JSON turns a trailing `undefined` into null, which an optional argument's schema refuses;
    // Electron's structured clone keeps it, and dropping it means the same.
    const sentArgs = [...args];
    while (sentArgs.length > 0 && sentArgs.at(-1) === undefined) sentArgs.pop();
    const id = nextId;
    nextId += 1;
    const envelope: CallMessage = { id, channel, args: sentArgs, ...(answer ? { answer } : {}) };
    let message: string;
    try {
      message = JSON.stringify(envelope);
    } catch {
      return Promise.resolve(failure('invalid_arguments', 'Invalid request: the arguments cannot be sent.'));
    }
    return new Promise((resolve) => {
      const timer = window.setTimeout(() => {
        if (pending.get(id)?.sent === false) settle(id, UNAVAILABLE);
      }, QUEUE_TIMEOUT_MS);
      pending.set(id, { message, sent: false, resolve, timer });
      flush();
    });
  };

  const subscribe: Subscribe = (event, listener) => {
    const forEvent = listeners.get(event) ?? new Set();
    listeners.set(event, forEvent);
    // Wrapped so the same function subscribed twice is two subscriptions, as with ipcRenderer.
    const subscription = (payload: unknown) => listener(payload);
    forEvent.add(subscription);
    return () => {
      forEvent.delete(subscription);
    };
  };

  const dialogCall = <C extends InvokeChannel>(channel: C, args: readonly unknown[], paths: string[]) =>
    call(channel, args, { paths }) as Promise<IpcResult<ChannelResult<C>>>;
  const promptPaths = (question: string): string[] =>
    (window.prompt(question) ?? '')
      .split(/[;\n]/)
      .map((path) => path.trim())
      .filter((path) => path !== '');
  const promptPath = (question: string): string[] => {
    const path = window.prompt(question)?.trim();
    return path ? [path] : [];
  };
  /** The page's language (the renderer sets `<html lang>` to the one the desk speaks). */
  const words = (): Translator['t'] => {
    const { language, locale } = resolveLanguage('system', [document.documentElement.lang || 'en']);
    return createTranslator(language, locale).t;
  };

  // A browser has no open dialog that yields paths: these ask for them (development host only).
  const dialogs: DeskBridge['dialogs'] = Object.freeze({
    pickPdfs: () => dialogCall('dialogs.pickPdfs', [], promptPaths(words()('host.promptPdfs'))),
    pickFolder: () => dialogCall('dialogs.pickFolder', [], promptPath(words()('host.promptFolder'))),
    pickManifest: () => dialogCall('dialogs.pickManifest', [], promptPath(words()('host.promptManifest'))),
  });
  const report: DeskBridge['report'] = Object.freeze({
    csv: (batchId: string) =>
      call('report.csv', [batchId]) as Promise<IpcResult<ChannelResult<'report.csv'>>>,
    // No prompt: the host saves the report in its Downloads folder and answers with the path.
    export: (batchId: string) =>
      call('report.export', [batchId]) as Promise<IpcResult<ChannelResult<'report.export'>>>,
  });

  const api = createBridge((channel, args) => call(channel, args), subscribe);
  const desk: HostBridge = Object.freeze({
    ...api,
    dialogs,
    report,
    host: 'browser' as const,
    pathForFile: (_file: File): string | undefined => undefined,
    onConnectionChange: (listener: (connected: boolean) => void) => {
      connectionListeners.add(listener);
      if (connected === false) listener(false);
      return () => {
        connectionListeners.delete(listener);
      };
    },
  });
  // Read-only and permanent, like contextBridge.exposeInMainWorld.
  Object.defineProperty(window, 'desk', {
    value: desk,
    enumerable: true,
    writable: false,
    configurable: false,
  });
  connect();
}

if (!Object.hasOwn(window, 'desk')) installDeskBridge();
