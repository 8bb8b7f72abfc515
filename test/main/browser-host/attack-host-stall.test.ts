/**
 * An attack on the host's heartbeat: silence must be judged on the page, not on the host. When
 * the host's own process stalls (a breakpoint in this development host, a long synchronous
 * step), the page's answer to its ping waits unread behind the host's late timer; the page was
 * not silent, and must not be cut off for it.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bridgeProtocols, startTestHost, type TestHost } from './host-fixtures';

const PING_MS = 50;

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ bridgeTuning: { pingMs: PING_MS } });
});

afterAll(async () => {
  await host?.close();
});

/** Keeps this whole process (the host with it) busy, as a breakpoint or a long step does. */
function stallProcess(forMs: number): void {
  const until = performance.now() + forMs;
  while (performance.now() < until) {
    // busy: no timer, no I/O runs meanwhile
  }
}

describe('the host’s heartbeat when the host itself stalls', () => {
  it('keeps a page that answered every ping', async () => {
    const page = new WebSocket(`ws://127.0.0.1:${host.port}/bridge`, bridgeProtocols(host.secret), {
      origin: host.launched.origin,
    });
    let closed = false;
    page.on('close', () => {
      closed = true;
    });
    let pings = 0;
    let stalled = false;
    page.on('ping', () => {
      pings += 1;
      // ws has answered this ping already; the host cannot read the answer until the stall ends.
      if (!stalled) {
        stalled = true;
        stallProcess(PING_MS * 3);
      }
    });
    await expect.poll(() => pings >= 5 || closed, { timeout: 10_000, interval: 10 }).toBe(true);
    expect(closed).toBe(false);
    expect(host.logLines.some((line) => line.includes('"bridge.page_silent"'))).toBe(false);
    page.close();
  });
});
