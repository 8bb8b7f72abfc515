/**
 * `window.desk` for a page of the browser host: the very API the Electron preload exposes, built
 * by the same `createBridge`, over the bridge connection (bridge-connection.ts). Browser code
 * only: no Node imports.
 */
import { resolveLanguage } from '../../shared/i18n/languages';
import { createTranslator, type Translator } from '../../shared/i18n/translator';
import { createBridge, type DeskBridge, type HostBridge } from '../../shared/ipc/bridge';
import type { ChannelResult, InvokeChannel, IpcResult } from '../../shared/ipc/contract';
import {
  BRIDGE_PATH,
  BRIDGE_PROTOCOL,
  SECRET_HASH_PARAMETER,
  SECRET_PROTOCOL_PREFIX,
} from '../../shared/ipc/browser-host-protocol';
import { createBridgeConnection, type BridgeConnection, type BridgeTiming } from './bridge-connection';

/**
 * Kept for this tab only, so a reload (a normal development step) still finds the secret after
 * the fragment was cleared. Only this origin's pages can read it, and they are the app itself.
 */
const SECRET_STORAGE_KEY = 'desk-bridge.secret';
const SECRET_SHAPE = /^[A-Za-z0-9_-]{16,128}$/;

const NO_SECRET: IpcResult<never> = {
  ok: false,
  error: {
    code: 'bridge_unavailable',
    message:
      'This page was opened without its key. Open the address the browser host printed when it started.',
  },
};

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

/** A page opened without its secret: every call says so, and the backend is never reachable. */
function withoutSecret(): BridgeConnection {
  return {
    call: () => Promise.resolve(NO_SECRET),
    subscribe: () => () => undefined,
    onConnectionChange(listener) {
      listener({ connected: false });
      return () => undefined;
    },
    dispose: () => undefined,
  };
}

/**
 * Defines `window.desk` (read-only and permanent, like contextBridge.exposeInMainWorld) unless
 * the page has one already. `timing` is for tests, which bundle their own entry with short
 * heartbeats and deadlines; the app's entry (browser-host-bridge.ts) passes none.
 */
export function installDeskBridge(timing?: Partial<BridgeTiming>): void {
  if (Object.hasOwn(window, 'desk')) return;
  const secret = takeSecret();
  const connection =
    secret === undefined
      ? withoutSecret()
      : createBridgeConnection({
          openSocket: () =>
            new WebSocket(`ws://${location.host}${BRIDGE_PATH}`, [
              BRIDGE_PROTOCOL,
              `${SECRET_PROTOCOL_PREFIX}${secret}`,
            ]),
          ...(timing ? { timing } : {}),
        });
  const { call } = connection;

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

  const api = createBridge((channel, args) => call(channel, args), connection.subscribe);
  const desk: HostBridge = Object.freeze({
    ...api,
    dialogs,
    report,
    host: 'browser' as const,
    pathForFile: (_file: File): string | undefined => undefined,
    onConnectionChange: connection.onConnectionChange,
  });
  Object.defineProperty(window, 'desk', {
    value: desk,
    enumerable: true,
    writable: false,
    configurable: false,
  });
}
