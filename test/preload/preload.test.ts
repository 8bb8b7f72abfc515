import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BRIDGE_EVENTS, BRIDGE_METHODS } from '../../shared/ipc/bridge';
import { DESK_EVENT_CHANNEL, DESK_INVOKE_CHANNEL } from '../../shared/ipc/channels';
import type { HostBridge } from '../../shared/ipc/bridge';
import { contextBridge, ipcRenderer, webUtils } from '../main/shell/fake-electron';

vi.mock('electron', () => import('../main/shell/fake-electron'));

type AnyFunction = (...args: unknown[]) => unknown;
const GENERIC_NAMES = [
  'invoke',
  'send',
  'sendSync',
  'on',
  'once',
  'off',
  'emit',
  'addListener',
  'removeListener',
  'postMessage',
];

let api: HostBridge;

beforeAll(async () => {
  await import('../../preload/index');
  api = contextBridge.exposed.get('desk') as HostBridge;
});

beforeEach(() => {
  ipcRenderer.invoke.mockReset();
  ipcRenderer.invoke.mockResolvedValue({ ok: true, value: 'answer' });
  webUtils.getPathForFile.mockReset();
});

function group(name: string): Record<string, AnyFunction> {
  return (api as unknown as Record<string, Record<string, AnyFunction>>)[name] ?? {};
}

/** Every [path, value] reachable from the exposed API. */
function walk(value: unknown, path = 'desk'): [string, unknown][] {
  if (typeof value !== 'object' || value === null) return [[path, value]];
  return [[path, value], ...Object.entries(value).flatMap(([key, inner]) => walk(inner, `${path}.${key}`))];
}

describe('the preload', () => {
  it('exposes one object, window.desk, and nothing else', () => {
    expect([...contextBridge.exposed.keys()]).toEqual(['desk']);
  });

  it('exposes exactly the named API of the contract, plus host and pathForFile', () => {
    expect(Object.keys(api).sort()).toEqual(
      [...Object.keys(BRIDGE_METHODS), 'events', 'host', 'pathForFile'].sort(),
    );
    for (const [name, methods] of Object.entries(BRIDGE_METHODS)) {
      expect(Object.keys(group(name)).sort()).toEqual(Object.keys(methods).sort());
    }
    expect(Object.keys(api.events).sort()).toEqual(Object.keys(BRIDGE_EVENTS).sort());
    for (const [name, events] of Object.entries(BRIDGE_EVENTS))
      expect(Object.keys(api.events[name as keyof typeof BRIDGE_EVENTS]).sort()).toEqual(
        Object.keys(events).sort(),
      );
    expect(api.host).toBe('electron');
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.isFrozen(api.batches)).toBe(true);
    expect(Object.isFrozen(api.events)).toBe(true);
  });

  it('exposes no raw ipcRenderer, generic invoke/send/on, process or environment', () => {
    for (const [path, value] of walk(api)) {
      const key = path.split('.').at(-1) ?? '';
      expect(GENERIC_NAMES).not.toContain(key);
      expect(['ipcRenderer', 'process', 'env', 'require', 'electron', 'contextBridge']).not.toContain(key);
      expect(value).not.toBe(ipcRenderer);
      expect(value).not.toBe(process);
      expect(value).not.toBe(process.env);
    }
  });

  it('lets no method choose its channel: each one forwards exactly its own', async () => {
    for (const [name, methods] of Object.entries(BRIDGE_METHODS)) {
      for (const [method, channel] of Object.entries(methods)) {
        ipcRenderer.invoke.mockClear();
        await group(name)[method]?.('fs.readFile', 'report.save', '/etc/passwd');
        expect(ipcRenderer.invoke).toHaveBeenCalledExactlyOnceWith(DESK_INVOKE_CHANNEL, channel, [
          'fs.readFile',
          'report.save',
          '/etc/passwd',
        ]);
      }
    }
  });

  it('returns what main answers', async () => {
    ipcRenderer.invoke.mockResolvedValueOnce({ ok: true, value: { id: 'batch-1', name: 'Tuesday' } });
    expect(await api.batches.rename('batch-1', 'Tuesday')).toEqual({
      ok: true,
      value: { id: 'batch-1', name: 'Tuesday' },
    });
    expect(ipcRenderer.invoke).toHaveBeenCalledWith(DESK_INVOKE_CHANNEL, 'batches.rename', [
      'batch-1',
      'Tuesday',
    ]);
  });

  it('turns a broken transport into an error value', async () => {
    ipcRenderer.invoke.mockRejectedValueOnce(new Error("Error invoking remote method 'desk:invoke'"));
    expect(await api.app.info()).toMatchObject({ ok: false, error: { code: 'ipc_failed' } });
  });

  it('gives listeners the payload only, never the IPC event object', () => {
    const received: unknown[][] = [];
    const unsubscribe = api.events.batch.deleted((...args: unknown[]) => {
      received.push(args);
    });
    ipcRenderer.deliver(DESK_EVENT_CHANNEL, 'batch.deleted', { batchId: 'batch-1' });
    expect(received).toEqual([[{ batchId: 'batch-1' }]]);
    unsubscribe();
  });

  it('delivers each event to its own subscribers only, until they unsubscribe', () => {
    const deleted = vi.fn();
    const changed = vi.fn();
    const stopDeleted = api.events.batch.deleted(deleted);
    const stopChanged = api.events.batch.changed(changed);
    ipcRenderer.deliver(DESK_EVENT_CHANNEL, 'batch.deleted', { batchId: 'batch-1' });
    ipcRenderer.deliver(DESK_EVENT_CHANNEL, 'no.such.event', { batchId: 'batch-1' });
    expect(deleted).toHaveBeenCalledExactlyOnceWith({ batchId: 'batch-1' });
    expect(changed).not.toHaveBeenCalled();
    stopDeleted();
    ipcRenderer.deliver(DESK_EVENT_CHANNEL, 'batch.deleted', { batchId: 'batch-2' });
    expect(deleted).toHaveBeenCalledOnce();
    stopChanged();
  });

  it('keeps delivering to other listeners when one throws', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const after = vi.fn();
    const stopFailing = api.events.sending.state(() => {
      throw new Error('listener bug');
    });
    const stopAfter = api.events.sending.state(after);
    ipcRenderer.deliver(DESK_EVENT_CHANNEL, 'sending.state', { batchId: 'b', engine: { state: 'idle' } });
    expect(after).toHaveBeenCalledOnce();
    stopFailing();
    stopAfter();
    errors.mockRestore();
  });

  it('listens on its one event channel with one listener, however many subscriptions', () => {
    const stops = Array.from({ length: 25 }, () => api.events.tracking.status(() => undefined));
    expect(ipcRenderer.eventNames()).toEqual([DESK_EVENT_CHANNEL]);
    expect(ipcRenderer.listenerCount(DESK_EVENT_CHANNEL)).toBe(1);
    for (const stop of stops) stop();
  });

  it('gives the path of a dropped file, or undefined', () => {
    const file = {} as File;
    webUtils.getPathForFile.mockReturnValueOnce('/home/ana/contract.pdf');
    expect(api.pathForFile(file)).toBe('/home/ana/contract.pdf');
    webUtils.getPathForFile.mockReturnValueOnce('');
    expect(api.pathForFile(file)).toBeUndefined();
    webUtils.getPathForFile.mockImplementationOnce(() => {
      throw new TypeError('not a File');
    });
    expect(api.pathForFile(file)).toBeUndefined();
  });
});
