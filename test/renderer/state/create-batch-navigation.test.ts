/**
 * A batch just created opens only if the person is still where they asked for it: the answer to
 * "Create batch" may come late (a busy machine, a slow disk), and someone who went elsewhere
 * meanwhile — another screen, or the batch list clicked again — is not taken away. Main's answer is
 * held here until the test gives it, so the order is the test's, not the clock's.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HostBridge } from '../../../shared/ipc/bridge';
import type { BatchDetail, BatchSummary } from '../../../shared/ipc/views';

const NEW_BATCH = { id: 'batch-new', name: 'Monday contracts' } as unknown as BatchSummary;

/** Main's answer to the one `batches.create` call, given when the test says. */
let answerCreate: () => void;
let createCalls: string[];

beforeEach(() => {
  vi.resetModules();
  createCalls = [];
  const bridge = {
    host: 'electron',
    batches: {
      create: (name: string) => {
        createCalls.push(name);
        return new Promise((resolve) => {
          answerCreate = () => resolve({ ok: true, value: NEW_BATCH });
        });
      },
      get: async () => ({
        ok: true,
        value: { ...NEW_BATCH, documents: [], defaults: {} } as unknown as BatchDetail,
      }),
    },
  } as unknown as HostBridge;
  vi.stubGlobal('window', { desk: bridge });
});
afterEach(() => vi.unstubAllGlobals());

/** The store, with "Create batch" asked from the batch list and its answer not come yet. */
async function createAskedFromTheList() {
  const { useDesk } = await import('../../../renderer/src/state/store');
  expect(useDesk.getState().screen).toEqual({ name: 'batches' });
  const created = useDesk.getState().actions.batches.create('Monday contracts');
  expect(createCalls).toEqual(['Monday contracts']);
  return { useDesk, created };
}

describe('the answer to "Create batch"', () => {
  it('opens the new batch when the person is still on the list', async () => {
    const { useDesk, created } = await createAskedFromTheList();
    answerCreate();
    await created;
    expect(useDesk.getState().screen).toEqual({ name: 'batch', batchId: 'batch-new' });
  });

  it('leaves a person who went to Connections meanwhile where they are; the batch is in the list', async () => {
    const { useDesk, created } = await createAskedFromTheList();
    useDesk.getState().actions.page.navigate({ name: 'connections' });
    answerCreate();
    await created;
    expect(useDesk.getState().screen).toEqual({ name: 'connections' });
    expect(Object.keys(useDesk.getState().batches)).toEqual(['batch-new']);
  });

  it('leaves a person who clicked Batches again meanwhile on the list, where the new batch shows', async () => {
    const { useDesk, created } = await createAskedFromTheList();
    // The journey's case: the same screen, chosen anew, is a choice the answer does not undo.
    useDesk.getState().actions.page.navigate({ name: 'batches' });
    answerCreate();
    await created;
    expect(useDesk.getState().screen).toEqual({ name: 'batches' });
    expect(useDesk.getState().batches['batch-new']?.name).toBe('Monday contracts');
  });
});
