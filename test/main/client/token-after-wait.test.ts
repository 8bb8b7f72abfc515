import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { READ_SPACING_MS } from '../../../main/client/read-spacing';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { variantNamed } from '../../../simulator/variants';
import { expectOk, makeTestClient, uploadSourceOf } from '../../support/client-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';

let files: TempFolder;
let sim: Simulator;
/** The service and the client on one virtual clock: the reads' 5 s waits take none. */
let clock: VirtualClock;
beforeAll(async () => {
  files = makeTempFolder('token-wait-');
  // Tokens last 3 s and the service does not say so (no expires_in): shorter than the 5 s
  // between two reads of one request.
  ({ sim, clock } = await startVirtualSimulator({
    seed: 5,
    variant: variantNamed('terse-token'),
    tokenTtlSeconds: 3,
  }));
});
afterAll(async () => {
  await sim.close();
  files.remove();
});

it('a read that waits its turn longer than the token lasts renews the token after the wait, not before', async () => {
  const { client } = makeTestClient(sim.baseUrl, DEMO_CLIENT, { clock });
  const run = <T>(work: Promise<T>): Promise<T> => clock.complete(work);
  const pdf = await writePdf(files, 'wait.pdf', 'Token after the wait');
  const upload = expectOk(await run(client.uploadDocument(uploadSourceOf(pdf))));
  const created = expectOk(
    await run(
      client.createSigningRequest(
        {
          external_reference: 'WAIT-1',
          document: { upload_id: upload.upload_id },
          recipients: [{ participant_type: 'signer', role: 'Signer', name: 'Ada', email: 'ada@example.com' }],
        },
        randomUUID(),
      ),
    ),
  );
  const id = created.id!;
  // Each read waits 5 s for its turn (the first after the client started, the second after the
  // first); the token it held is stale by then. One 401 is the most a read may cost: after it,
  // the fresh token is taken once the next turn has come, not before the wait.
  for (const read of [1, 2]) {
    const answer = await run(client.getSigningRequest(id));
    expect(answer.ok, `read ${read}: ${answer.ok ? '' : answer.error.message}`).toBe(true);
  }
  const reads = sim.state
    .calls()
    .filter((call) => call.operation === 'readSigningRequest')
    .map((call) => call.status);
  expect(reads.filter((status) => status === 200)).toHaveLength(2);
  expect(reads.filter((status) => status === 401).length).toBeLessThanOrEqual(2);
  // On one clock it is exact: each read's token, 5 s old at its turn, is refused once.
  expect(reads).toEqual([401, 200, 401, 200]);
  // Each renewal is asked for at the instant its read goes again, after the wait, not before it.
  const calls = sim.state.calls();
  for (const [index, call] of calls.entries()) {
    if (call.operation !== 'readSigningRequest' || call.status !== 200) continue;
    const renewal = calls[index - 1];
    expect(renewal?.operation).toBe('token');
    expect(renewal?.at).toBe(call.at);
    const refused = calls[index - 2];
    expect(refused).toMatchObject({ operation: 'readSigningRequest', status: 401 });
    expect(Date.parse(call.at) - Date.parse(refused?.at ?? '')).toBe(READ_SPACING_MS);
  }
  expect(sim.state.violations()).toEqual([]);
});
