/**
 * Attacks on the bridge's clocks: its bounds are meant in elapsed time, as the page's timers
 * count it. When the wall clock jumps (a laptop waking up, the time set by hand or by NTP), the
 * host's ledger must still know every call the page may still ask for (or the call runs a
 * second time), and the page must still find a silent line.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConnectionChange } from '../../../shared/ipc/bridge';
import type { ResultMessage } from '../../../shared/ipc/browser-host-protocol';
import { createCallLedger } from '../../../main/browser-host/call-ledger';
import { createBridgeConnection, type BridgeSocket } from '../../../renderer/browser-host/bridge-connection';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Date.now, shifted by what a test sets. */
function jumpingWallClock(): { jump(byMs: number): void } {
  const realNow = Date.now.bind(Date);
  let shift = 0;
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
  return {
    jump(byMs) {
      shift += byMs;
    },
  };
}

/** A host that welcomes the page, then never answers anything again (a line gone silent). */
function silentAfterWelcome(heartbeats: { count: number }): BridgeSocket {
  const handlers = new Map<string, ((event: { data: unknown }) => void)[]>();
  const fire = (type: string, data?: unknown) => {
    for (const handler of handlers.get(type) ?? []) handler({ data });
  };
  const socket = {
    readyState: 0,
    send(text: string) {
      const { type } = JSON.parse(text) as { type: string };
      if (type === 'heartbeat') heartbeats.count += 1;
      if (type === 'hello') {
        queueMicrotask(() =>
          fire(
            'message',
            JSON.stringify({ type: 'welcome', launch: 'L', seq: 0, resync: false, resend: [] }),
          ),
        );
      }
    },
    close() {
      socket.readyState = 3;
    },
    addEventListener(type: string, handler: (event: { data: unknown }) => void) {
      handlers.set(type, [...(handlers.get(type) ?? []), handler]);
    },
  };
  queueMicrotask(() => {
    socket.readyState = 1;
    fire('open');
  });
  return socket as BridgeSocket;
}

describe('the host’s ledger of calls when the wall clock jumps forward', () => {
  it('still answers a call from its result, never running it again', async () => {
    const wall = jumpingWallClock();
    const ledger = createCallLedger({ latestSeq: () => 0 });
    const runs: string[] = [];
    const take = (id: string) =>
      new Promise<string>((resolve) =>
        ledger.take(id, 'the same request', resolve, () => {
          runs.push(id);
          return Promise.resolve<ResultMessage>({ type: 'result', id, result: { ok: true, value: id } });
        }),
      );
    const first = await take('page-cccccccccccc.1');
    wall.jump(60 * 60_000);
    await take('page-cccccccccccc.2'); // a new call prunes what the ledger thinks expired
    expect(await take('page-cccccccccccc.1')).toBe(first);
    expect(runs).toEqual(['page-cccccccccccc.1', 'page-cccccccccccc.2']);
  });
});

describe('the page’s heartbeat when the wall clock jumps back', () => {
  it('still finds the silent line', async () => {
    const wall = jumpingWallClock();
    const changes: ConnectionChange[] = [];
    let sockets = 0;
    const heartbeats = { count: 0 };
    const connection = createBridgeConnection({
      openSocket: () => {
        sockets += 1;
        return silentAfterWelcome(heartbeats);
      },
      timing: { heartbeatMs: 10, silenceMs: 40, reconnectFirstMs: 10_000, reconnectLongestMs: 10_000 },
    });
    connection.onConnectionChange((change) => changes.push(change));
    try {
      await expect.poll(() => changes.some((change) => change.connected)).toBe(true);
      // The host has been silent since a heartbeat the page sent: then the clock goes back.
      await expect.poll(() => heartbeats.count > 0).toBe(true);
      wall.jump(-60 * 60_000);
      await expect.poll(() => changes.at(-1), { timeout: 3_000 }).toEqual({ connected: false });
      expect(sockets).toBe(1);
    } finally {
      connection.dispose();
    }
  });
});
