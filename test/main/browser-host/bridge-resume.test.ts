/**
 * A bridge that cannot lose a call (README "Running the app in each host"), the page's side driven
 * in Node over a line that goes silent without closing: a call is never pending forever, a call
 * whose answer was lost is sent again and applied once, events sent meanwhile arrive afterwards (or
 * the page is told to read everything anew), and the host answers a request id once.
 */
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionChange } from '../../../shared/ipc/bridge';
import type { EventMessage } from '../../../shared/ipc/browser-host-protocol';
import {
  createBridgeConnection,
  type BridgeConnection,
  type BridgeSocket,
} from '../../../renderer/browser-host/bridge-connection';
import {
  bridgeProtocols,
  openBridge,
  openTrustedBridge,
  startTestHost,
  type TestHost,
} from './host-fixtures';
import { startSilentLine, type SilentLine } from './silent-line';

/** Short enough for a test, in the product's proportions. */
const TIMING = {
  heartbeatMs: 50,
  silenceMs: 400,
  callDeadlineMs: 3_000,
  queueTimeoutMs: 3_000,
  reconnectFirstMs: 20,
  reconnectLongestMs: 100,
};

let host: TestHost;
let line: SilentLine;
const opened: { connection: BridgeConnection }[] = [];

beforeAll(async () => {
  host = await startTestHost({ bridgeTuning: { pingMs: 100 } });
  line = await startSilentLine(host.port);
});

afterEach(() => {
  for (const { connection } of opened.splice(0)) connection.dispose();
  line.restore();
});

afterAll(async () => {
  await line?.close();
  await host?.close();
});

/** The page's bridge connection in Node, reaching `target` through the silent line. */
function pageConnection(target: TestHost = host, through: SilentLine = line) {
  const changes: ConnectionChange[] = [];
  const connection = createBridgeConnection({
    openSocket: () => {
      const socket = new WebSocket(`ws://127.0.0.1:${through.port}/bridge`, bridgeProtocols(target.secret), {
        origin: target.launched.origin,
        headers: { host: `127.0.0.1:${target.port}` },
      });
      // ws reports a failed connection as an error event as well as a close: the close is enough.
      socket.on('error', () => undefined);
      return socket as unknown as BridgeSocket;
    },
    timing: TIMING,
  });
  connection.onConnectionChange((change) => changes.push(change));
  opened.push({ connection });
  return { connection, changes };
}

/** Waits for `find` to find something (polled; the outcome, never a duration). */
async function until<T>(
  find: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  let found: T | undefined | false;
  await expect
    .poll(
      async () => {
        found = await find();
        return found !== undefined && found !== false;
      },
      { timeout: timeoutMs, interval: 20, message: what },
    )
    .toBe(true);
  return found as T;
}

async function batchNames(target: TestHost = host): Promise<string[]> {
  const client = await openTrustedBridge(target);
  try {
    const listed = await client.call('batches.list', []);
    return listed.result.ok ? (listed.result.value as { name: string }[]).map((batch) => batch.name) : [];
  } finally {
    client.close();
  }
}

describe('the page’s bridge over a line that goes silent without closing', () => {
  it('says the host is gone and gives up on a call after its deadline, instead of waiting forever', async () => {
    const { connection, changes } = pageConnection();
    expect(await connection.call('app.info', [])).toMatchObject({ ok: true });
    line.silence('both');
    const call = connection.call('batches.create', ['Never arrives']);
    await until(() => changes.some((change) => !change.connected), 'the page notices the silence');
    expect(await call).toEqual({
      ok: false,
      error: { code: 'bridge_no_answer', message: expect.stringContaining('did not answer in time') },
    });
    expect(await batchNames()).not.toContain('Never arrives');
  });

  it('sends a call whose answer was lost again over the next connection, and the host applies it once', async () => {
    const { connection, changes } = pageConnection();
    expect(await connection.call('app.info', [])).toMatchObject({ ok: true });
    line.silence('to-page');
    // The call reaches the host; its answer does not come back.
    const created = connection.call('batches.create', ['Created once']);
    await until(async () => (await batchNames()).includes('Created once'), 'the host created the batch');
    await until(() => changes.some((change) => !change.connected), 'the page notices the silence');
    line.restore();
    expect(await created).toMatchObject({ ok: true, value: { name: 'Created once' } });
    expect(changes.at(-1)).toEqual({ connected: true, resync: false });
    expect((await batchNames()).filter((name) => name === 'Created once')).toHaveLength(1);
  });

  it('delivers the events sent while the line was silent once it is back, in order, and none twice', async () => {
    const { connection, changes } = pageConnection();
    const seen: string[] = [];
    connection.subscribe('batch.changed', (payload) =>
      seen.push((payload as { batch: { name: string } }).batch.name),
    );
    expect(await connection.call('batches.create', ['Heard live'])).toMatchObject({ ok: true });
    await until(() => seen.includes('Heard live'), 'the live event');
    line.silence('both');
    await until(() => changes.some((change) => !change.connected), 'the page notices the silence');
    const other = await openTrustedBridge(host);
    await other.call('batches.create', ['Missed one']);
    await other.call('batches.create', ['Missed two']);
    other.close();
    line.restore();
    await until(() => seen.includes('Missed two'), 'the missed events');
    expect(seen.filter((name) => name.startsWith('Missed') || name === 'Heard live')).toEqual([
      'Heard live',
      'Missed one',
      'Missed two',
    ]);
    expect(changes.at(-1)).toEqual({ connected: true, resync: false });
  });
});

describe('when the missed events cannot all be replayed', () => {
  let small: TestHost;
  let smallLine: SilentLine;

  beforeAll(async () => {
    small = await startTestHost({ bridgeTuning: { events: { maxEvents: 2 } } });
    smallLine = await startSilentLine(small.port);
  });
  afterAll(async () => {
    await smallLine?.close();
    await small?.close();
  });

  it('tells the page to read its state anew', async () => {
    const { connection, changes } = pageConnection(small, smallLine);
    expect(await connection.call('app.info', [])).toMatchObject({ ok: true });
    smallLine.silence('both');
    await until(() => changes.some((change) => !change.connected), 'the page notices the silence');
    const other = await openTrustedBridge(small);
    for (const name of ['Gap one', 'Gap two', 'Gap three']) await other.call('batches.create', [name]);
    other.close();
    smallLine.restore();
    await until(() => changes.at(-1)?.connected, 'the page is back');
    expect(changes.at(-1)).toEqual({ connected: true, resync: true });
  });
});

describe('the host’s side', () => {
  it('runs a request id once: the same call again is answered with the first result', async () => {
    const client = await openTrustedBridge(host);
    // The same call over a second connection while it runs, as a page resends it after a drop.
    const resent = await openTrustedBridge(host);
    const id = 'same-request-id-test.1';
    const [first, joined] = await Promise.all([
      client.callAs(id, 'batches.create', ['Asked twice']),
      resent.callAs(id, 'batches.create', ['Asked twice']),
    ]);
    const again = await client.callAs(id, 'batches.create', ['Asked twice']);
    client.close();
    resent.close();
    expect(first.result).toMatchObject({ ok: true, value: { name: 'Asked twice' } });
    expect(joined).toEqual(first);
    expect(again).toEqual(first);
    expect((await batchNames()).filter((name) => name === 'Asked twice')).toHaveLength(1);
  });

  it('replays to a page the events after the last it got, and numbers them', async () => {
    const client = await openTrustedBridge(host, false);
    const welcome = await client.hello();
    await client.call('batches.create', ['Numbered']);
    const event = await client.waitForEvent((message) => message.event === 'batch.changed');
    client.close();
    const back = await openTrustedBridge(host, false);
    const rewelcome = await back.hello({ launch: welcome.launch, seq: welcome.seq });
    back.close();
    expect(event.seq).toBeGreaterThan(welcome.seq);
    expect(back.events.map((message: EventMessage) => message.seq)).toContain(event.seq);
    expect(rewelcome).toMatchObject({ type: 'welcome', launch: welcome.launch, resync: false, resend: [] });
    const stranger = await openTrustedBridge(host, false);
    expect(await stranger.hello({ launch: 'another-launch', seq: 1 })).toMatchObject({ resync: true });
    stranger.close();
  });

  it('cuts off a page that answers none of its pings, and keeps serving others', async () => {
    const opening = await new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${host.port}/bridge`, bridgeProtocols(host.secret), {
        origin: host.launched.origin,
        autoPong: false,
      });
      socket.once('open', () => resolve(socket));
      socket.once('error', reject);
    });
    const code = await new Promise<number>((resolve) => opening.once('close', resolve));
    expect(code).toBe(1006);
    expect(host.logLines.some((logged) => logged.includes('"bridge.page_silent"'))).toBe(true);
    const opened2 = await openBridge(host.port, {
      origin: host.launched.origin,
      protocols: bridgeProtocols(host.secret),
    });
    expect(opened2.opened).toBe(true);
    if (opened2.opened) opened2.client.close();
  });
});
