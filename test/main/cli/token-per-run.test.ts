import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { runCliHere } from '../../support/cli-in-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';

/**
 * A command line run asks the service for one token: the check before sending (service-check.ts)
 * obtains the token the run then uses, instead of a token of its own. A token the service stops
 * taking mid-run is renewed once, as before. The simulator over real HTTP on loopback, with hour-long
 * tokens, counts the token requests it received.
 */
const SAMPLE_MANIFEST = fileURLToPath(new URL('../../../samples/manifest.csv', import.meta.url));

let work: TempFolder;
let sim: Simulator;
let clock: VirtualClock;

afterEach(async () => {
  await sim?.close();
  work?.remove();
});

async function start(): Promise<void> {
  work = makeTempFolder('desk-cli-token-');
  ({ sim, clock } = await startVirtualSimulator({ seed: 21, tokenTtlSeconds: 3600 }));
}

/** The token requests the service received, by the status it answered. */
function tokenRequests(): (number | null)[] {
  return sim.state
    .calls()
    .filter((call) => call.operation === 'token')
    .map((call) => call.status);
}

function sendArgs(dataDir: string): string[] {
  return ['send', SAMPLE_MANIFEST, '--base-url', sim.baseUrl, '--data-dir', dataDir, '--json'];
}

describe('one token per command line run', () => {
  it('send of three documents, then status: one token request in all', async () => {
    await start();
    const dataDir = work.file('data');
    const sent = await runCliHere(sendArgs(dataDir), { clock, credentials: DEMO_CLIENT });
    expect(sent.code, sent.stderr).toBe(0);
    expect(sim.state.requests()).toHaveLength(3);
    expect(tokenRequests()).toEqual([200]);
    const status = await runCliHere(['status', '--data-dir', dataDir, '--json'], {
      clock,
      credentials: null,
    });
    expect(status.code).toBe(0);
    expect(tokenRequests()).toEqual([200]);
  }, 30_000);

  it('a token the service revokes after the first upload is renewed once: two token requests', async () => {
    await start();
    let revoked = false;
    const sent = await runCliHere(sendArgs(work.file('data')), {
      clock,
      credentials: DEMO_CLIENT,
      onStdoutLine: (line) => {
        if (!revoked && line.includes('"phase":"creating"')) {
          revoked = true;
          sim.revokeTokens();
        }
      },
    });
    expect(sent.code, sent.stderr).toBe(0);
    expect(revoked).toBe(true);
    // The calls that met the revoked token (those refused together share one renewal), then the
    // renewal, then every call with the new token.
    const refused = sim.state.calls().filter((call) => call.status === 401 && call.operation !== 'token');
    expect(refused.length).toBeGreaterThan(0);
    expect(sim.state.requests()).toHaveLength(3);
    expect(tokenRequests()).toEqual([200, 200]);
  }, 30_000);
});
