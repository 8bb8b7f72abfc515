/**
 * Attack on the virtual clock: a child process is real work the clock cannot see (libuv lists
 * its handle, never a request), so `runUntil`/`complete` jump over it to the next timer. The
 * ceremony opener races a starting browser against its open grace (5 s) on its clock: a browser
 * that dies 200 ms after it started is a failure in reality, but on a virtual clock the grace
 * "passes" first and the window is said to be open.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { CeremonyRequest } from '../../../main/app/ports';
import { createChromiumCeremonyOpener } from '../../../main/browser-host/chromium-ceremony-opener';
import { silentLogger } from '../../../main/base/log';
import { Secret } from '../../../main/base/secret';
import { VirtualClock } from '../../../main/time/virtual-clock';

const folder = mkdtempSync(join(tmpdir(), 'attack-child-jump-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A browser that starts, works for 200 ms of real time, and dies before following its link. */
function browserDyingAfterStart(): string {
  const executable = join(folder, 'dying-browser');
  writeFileSync(executable, `#!${process.execPath}\nsetTimeout(() => process.exit(3), 200);\n`);
  chmodSync(executable, 0o700);
  return executable;
}

it('a browser that dies while starting: open fails with its exit code, on a virtual clock too', async () => {
  const clock = new VirtualClock({ startAt: Date.now() });
  const opener = createChromiumCeremonyOpener({
    handoff: () => 'http://127.0.0.1:9/never-followed',
    logger: silentLogger,
    executable: browserDyingAfterStart(),
    hasDisplay: () => true,
    clock,
  });
  const request: CeremonyRequest = {
    key: 'batch-1/doc-1',
    title: 'Signing ceremony — REF-1',
    session: {
      requestId: 'req-1',
      widgetUrl: new Secret('http://127.0.0.1:9/widget/X'),
      expiresInSeconds: 600,
      expiresAt: clock.now() + 600_000,
    },
    renew: () => Promise.reject(new Error('not expired')),
    onClosed: () => undefined,
  };
  const opening = opener.open(request);
  // What a test of the desk does: let time run until the outcome, however long the waits are.
  await expect(clock.complete(opening)).rejects.toMatchObject({
    code: 'ceremony_window_failed',
    problem: { kind: 'exited', code: 3 },
  });
  await opener.closeAll();
}, 15_000);
