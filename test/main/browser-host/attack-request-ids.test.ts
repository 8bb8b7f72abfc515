/**
 * Attacks on the host's ledger of request ids (a mutating call resent after a drop is applied
 * once): an id reused with another request must be refused, as an idempotency key reused with
 * another body is, never answered with the first call's result; and a page that repeats a call
 * many times while it runs gets one answer, not one per repetition.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostMessage, ResultMessage } from '../../../shared/ipc/browser-host-protocol';
import { openTrustedBridge, startTestHost, type TestHost } from './host-fixtures';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost();
});

afterAll(async () => {
  await host?.close();
});

async function batchNames(): Promise<string[]> {
  return (await host.launched.service.handlers['batches.list']()).map((batch) => batch.name);
}

describe('a request id reused for another request', () => {
  it('is refused, not answered with the first call’s result, and not applied', async () => {
    const client = await openTrustedBridge(host);
    const id = 'attack-reused-id-args.1';
    const first = await client.callAs(id, 'batches.create', ['Reused first']);
    const other = await client.callAs(id, 'batches.create', ['Reused second']);
    client.close();
    expect(first.result).toMatchObject({ ok: true, value: { name: 'Reused first' } });
    expect(other.result).toMatchObject({ ok: false, error: { code: 'request_id_reused' } });
    expect(await batchNames()).not.toContain('Reused second');
  });

  it('is refused when only the channel differs', async () => {
    const client = await openTrustedBridge(host);
    const id = 'attack-reused-id-chan.1';
    const created = await client.callAs(id, 'batches.create', ['Reused channel']);
    const listed = await client.callAs(id, 'batches.list', []);
    client.close();
    expect(created.result).toMatchObject({ ok: true });
    expect(listed.result).toMatchObject({ ok: false, error: { code: 'request_id_reused' } });
  });

  it('is refused while the first call with it still runs', async () => {
    const client = await openTrustedBridge(host);
    const id = 'attack-reused-id-runs.1';
    // Both in one go: the second arrives while the first is running.
    const [first, other] = await Promise.all([
      client.callAs(id, 'batches.create', ['Running first']),
      client.callAs(id, 'batches.create', ['Running second']),
    ]);
    client.close();
    const byName = [first, other].map((reply) => reply.result);
    expect(byName).toContainEqual(expect.objectContaining({ ok: true }));
    expect(byName).toContainEqual({
      ok: false,
      error: expect.objectContaining({ code: 'request_id_reused' }),
    });
    expect(await batchNames()).not.toContain('Running second');
  });
});

describe('one page repeating a call while it runs', () => {
  it('gets one answer, however often it repeated it', async () => {
    const client = await openTrustedBridge(host);
    const received: HostMessage[] = [];
    client.socket.on('message', (data) => received.push(JSON.parse(String(data)) as HostMessage));
    const id = 'attack-repeated-call.1';
    const text = JSON.stringify({ type: 'call', id, channel: 'batches.create', args: ['Repeated'] });
    for (let sent = 0; sent < 50; sent += 1) client.socket.send(text);
    await expect
      .poll(() => received.some((message) => message.type === 'result' && message.id === id))
      .toBe(true);
    // A later call's answer comes after every answer to the repeated one.
    await client.call('app.info', []);
    client.close();
    const answers = received.filter(
      (message): message is ResultMessage => message.type === 'result' && message.id === id,
    );
    expect(answers).toHaveLength(1);
    expect((await batchNames()).filter((name) => name === 'Repeated')).toHaveLength(1);
  });
});
