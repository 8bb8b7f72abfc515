import { describe, expect, it } from 'vitest';
import type { ResultMessage } from '../../../shared/ipc/browser-host-protocol';
import { createCallLedger } from '../../../main/browser-host/call-ledger';

const answer = (id: string, value: string): Promise<ResultMessage> =>
  Promise.resolve({ type: 'result', id, result: { ok: true, value } });

/** Takes call `id` and resolves with the text it was answered, counting how often it ran. */
function taker(ledger: ReturnType<typeof createCallLedger>, runs: string[]) {
  return (id: string, value = 'x'.repeat(100)) =>
    new Promise<string>((resolve) =>
      ledger.take(id, 'the same request', resolve, () => {
        runs.push(id);
        return answer(id, value);
      }),
    );
}

describe('the host’s ledger of calls', () => {
  it('keeps a result for the page’s deadline after it was ready, then forgets it', async () => {
    let now = 0;
    const runs: string[] = [];
    const ledger = createCallLedger({ latestSeq: () => 7, retentionMs: 1_000, now: () => now });
    const take = taker(ledger, runs);
    const first = await take('page-aaaaaaaaaaaa.1');
    now = 999;
    expect(await take('page-aaaaaaaaaaaa.1')).toBe(first);
    expect(ledger.standing('page-aaaaaaaaaaaa.1', () => undefined)).toEqual({
      state: 'done',
      text: first,
      afterSeq: 7,
    });
    now = 1_000;
    await take('page-aaaaaaaaaaaa.2'); // any new call prunes what no page can ask for any more
    expect(ledger.standing('page-aaaaaaaaaaaa.1', () => undefined)).toEqual({ state: 'unknown' });
    expect(runs).toEqual(['page-aaaaaaaaaaaa.1', 'page-aaaaaaaaaaaa.2']);
  });

  it('past its room, drops the oldest results but never runs their calls again: their answer says it was lost', async () => {
    const runs: string[] = [];
    const ledger = createCallLedger({ latestSeq: () => 0, maxResultBytes: 250 });
    const take = taker(ledger, runs);
    await take('page-bbbbbbbbbbbb.1');
    await take('page-bbbbbbbbbbbb.2');
    const kept = await take('page-bbbbbbbbbbbb.3');
    expect(JSON.parse(await take('page-bbbbbbbbbbbb.1'))).toMatchObject({
      id: 'page-bbbbbbbbbbbb.1',
      result: { ok: false, error: { code: 'bridge_disconnected' } },
    });
    expect(await take('page-bbbbbbbbbbbb.3')).toBe(kept);
    expect(runs).toEqual(['page-bbbbbbbbbbbb.1', 'page-bbbbbbbbbbbb.2', 'page-bbbbbbbbbbbb.3']);
  });
});
