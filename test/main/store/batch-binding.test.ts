import { describe, expect, it } from 'vitest';
import { canonicalBaseUrl, sameConnection } from '../../../main/domain/batch-connection';
import { BatchStore } from '../../../main/store/batch-store';
import { CrashFileSystem } from '../../support/crash-fs';

const DATA = '/data';
const SANDBOX = { baseUrl: 'https://sandbox.example.com', clientId: 'desk' };
const PRODUCTION = { baseUrl: 'https://sign.example.com', clientId: 'desk' };

describe('binding a batch to its connection', () => {
  it('binds once: two bindings asked at the same time with different connections both get the first', async () => {
    const fs = new CrashFileSystem();
    const store = await BatchStore.open(DATA, { fs });
    const batchId = (await store.create('Contracts', { defaultRecipients: [] })).id;
    const answers = await Promise.all([
      store.bindConnection(batchId, SANDBOX),
      store.bindConnection(batchId, PRODUCTION),
    ]);
    expect(answers).toEqual([SANDBOX, SANDBOX]);
    expect(await store.bindConnection(batchId, PRODUCTION)).toEqual(SANDBOX);
    expect(store.get(batchId)?.connection).toEqual(SANDBOX);
    await store.close();
    // The binding is stored: the next start has it, and still refuses another.
    const reopened = await BatchStore.open(DATA, { fs });
    expect(reopened.get(batchId)?.connection).toEqual(SANDBOX);
    expect(await reopened.bindConnection(batchId, PRODUCTION)).toEqual(SANDBOX);
    await reopened.close();
  });

  it('compares addresses in one spelling: scheme and host case, default port and trailing slash do not matter', () => {
    expect(sameConnection({ baseUrl: 'HTTPS://Sign.Example.com:443/', clientId: 'desk' }, PRODUCTION)).toBe(
      true,
    );
    expect(canonicalBaseUrl('HTTP://127.0.0.1:4010/')).toBe('http://127.0.0.1:4010');
    expect(sameConnection({ baseUrl: 'https://sign.example.com:8443', clientId: 'desk' }, PRODUCTION)).toBe(
      false,
    );
    expect(sameConnection({ baseUrl: 'https://sign.example.com', clientId: 'Desk' }, PRODUCTION)).toBe(false);
  });

  it('a second binding found in a journal (written by an earlier version) does not move the batch', async () => {
    const fs = new CrashFileSystem();
    const store = await BatchStore.open(DATA, { fs });
    const batchId = (await store.create('Contracts', { defaultRecipients: [] })).id;
    await store.record(batchId, [{ type: 'connection_bound', ...SANDBOX }]);
    await store.record(batchId, [{ type: 'connection_bound', ...PRODUCTION }]);
    expect(store.get(batchId)?.connection).toEqual(SANDBOX);
    await store.close();
  });
});
