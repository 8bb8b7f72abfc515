/**
 * One name end to end (ARCHITECTURE.md "One name end to end"): each store action
 * `actions.<area>.<verb>` is named as the channel it calls, and calls that channel first; the few
 * that call no channel of their name are the page's own, listed here, so a new one is named on
 * purpose.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BRIDGE_EVENTS, BRIDGE_METHODS, type HostBridge } from '../../../shared/ipc/bridge';
import { invokeChannels } from '../../../shared/ipc/contract';

/** Actions of the page itself, or made of other actions: no channel bears their name. */
const PAGE_OWN = [
  'app.connect',
  'app.resync',
  'app.onConnectionChange',
  'page.navigate',
  'page.notify',
  'page.dismiss',
  'page.copyText',
  'documents.addDroppedFiles',
  'sending.retryFailed',
  'ceremony.dismissProblem',
];

/** Arguments an action needs to reach its channel at all (any other takes ids it passes on). */
const ARGUMENTS: Readonly<Record<string, readonly unknown[]>> = {
  'documents.addPaths': ['batch-1', ['/scans/contract.pdf']],
};

/** The channels called, in order; every call is refused, so no action goes further than it must. */
let called: string[];

beforeEach(() => {
  vi.resetModules();
  called = [];
  const methods = Object.fromEntries(
    Object.entries(BRIDGE_METHODS).map(([group, names]) => [
      group,
      Object.fromEntries(
        Object.values(names).map((channel) => [
          channel.split('.')[1],
          async () => {
            called.push(channel);
            return { ok: false, error: { code: 'refused', message: 'Refused.' } };
          },
        ]),
      ),
    ]),
  );
  const events = Object.fromEntries(
    Object.entries(BRIDGE_EVENTS).map(([group, names]) => [
      group,
      Object.fromEntries(Object.keys(names).map((name) => [name, () => () => undefined])),
    ]),
  );
  const bridge = { ...methods, events, host: 'electron', pathForFile: () => undefined };
  vi.stubGlobal('window', { desk: bridge as unknown as HostBridge });
});
afterEach(() => vi.unstubAllGlobals());

/** Every action of the store, by its full name. */
async function storeActions(): Promise<Map<string, (...args: unknown[]) => unknown>> {
  const { useDesk } = await import('../../../renderer/src/state/store');
  const actions = new Map<string, (...args: unknown[]) => unknown>();
  for (const [area, verbs] of Object.entries(useDesk.getState().actions)) {
    for (const [verb, action] of Object.entries(verbs as Record<string, (...args: unknown[]) => unknown>))
      actions.set(`${area}.${verb}`, action);
  }
  return actions;
}

describe('the store’s actions and the channels', () => {
  it('an action not named as a channel is one of the page’s own', async () => {
    const names = [...(await storeActions()).keys()];
    expect(names.filter((name) => !(name in invokeChannels)).sort()).toEqual([...PAGE_OWN].sort());
  });

  it('an action named as a channel calls that channel first', async () => {
    const actions = await storeActions();
    const firstCalls: Record<string, string | undefined> = {};
    const expected: Record<string, string> = {};
    for (const [name, action] of actions) {
      if (!(name in invokeChannels)) continue;
      called = [];
      await action(...(ARGUMENTS[name] ?? ['batch-1', 'doc-1', 'sr_1']));
      firstCalls[name] = called[0];
      expected[name] = name;
    }
    expect(Object.keys(expected).length).toBeGreaterThan(30);
    expect(firstCalls).toEqual(expected);
  });
});
