/**
 * The preload: exposes `window.desk`, the named API of shared/ipc/bridge.ts, over two raw IPC
 * channels that stay inside this closure. The page gets no ipcRenderer, no generic invoke or
 * send, no IPC event object, no process or environment: listeners receive the payload only.
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { createBridge, type HostBridge, type Invoke, type Subscribe } from '../shared/ipc/bridge';
import type { EventChannel, IpcResult } from '../shared/ipc/contract';
import { DESK_EVENT_CHANNEL, DESK_INVOKE_CHANNEL } from '../shared/ipc/channels';

const TRANSPORT_FAILED: IpcResult<never> = {
  ok: false,
  error: { code: 'ipc_failed', message: 'The app did not answer. Try again; restart it if this persists.' },
};

const invoke: Invoke = async (channel, args) => {
  try {
    return (await ipcRenderer.invoke(DESK_INVOKE_CHANNEL, channel, [...args])) as IpcResult<unknown>;
  } catch {
    return TRANSPORT_FAILED;
  }
};

// One IPC listener for every subscription, so the page can subscribe as often as it likes.
const listeners = new Map<EventChannel, Set<(payload: unknown) => void>>();

ipcRenderer.on(DESK_EVENT_CHANNEL, (_event: IpcRendererEvent, event: unknown, payload: unknown) => {
  const subscribed = listeners.get(event as EventChannel);
  if (!subscribed) return;
  for (const listener of [...subscribed]) {
    try {
      listener(payload);
    } catch (error) {
      console.error('A desk event listener failed', error);
    }
  }
});

const subscribe: Subscribe = (event, listener) => {
  // Wrapped so the page's function is called with the payload only, whatever it declares.
  const deliver = (payload: unknown) => listener(payload);
  const subscribed = listeners.get(event) ?? new Set();
  subscribed.add(deliver);
  listeners.set(event, subscribed);
  return () => {
    subscribed.delete(deliver);
  };
};

/** The path on disk of a file dropped on the page, or undefined for one that has none. */
function pathForFile(file: File): string | undefined {
  try {
    const path = webUtils.getPathForFile(file);
    return path === '' ? undefined : path;
  } catch {
    return undefined;
  }
}

const api: HostBridge = Object.freeze({
  ...createBridge(invoke, subscribe),
  host: 'electron',
  pathForFile,
});

contextBridge.exposeInMainWorld('desk', api);
