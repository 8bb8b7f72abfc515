import { afterEach, describe, expect, it } from 'vitest';
import { phaseOf } from '../../../main/domain/batch-state';
import type { Desk } from '../../../main/app/desk-core';
import { startSimulator, type Simulator } from '../../../simulator/simulator';
import { makeBatch, openTestDesk } from '../../support/batch-harness';
import { sendingAsEarlierVersion } from '../../support/earlier-version';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

/**
 * A batch an earlier version sent, before batches were bound to their connection, is never
 * sent by the engine itself (main/engine/send-engine.ts): only a proof that a service holds its
 * requests binds it (main/engine/older-batch.ts). The app and the command line ask for that
 * proof first; the engine is the last guard, so it is called here directly, with the real
 * engine against two simulators over HTTP.
 */
let services: Simulator[] = [];
let files: TempFolder | undefined;
let desk: Desk | undefined;

afterEach(async () => {
  await desk?.close();
  desk = undefined;
  for (const service of services) await service.close();
  services = [];
  files?.remove();
  files = undefined;
});

/** What a service was asked to do for a batch being sent, call by call. */
const sendingCalls = (service: Simulator) =>
  service.state
    .calls()
    .map((call) => `${call.operation} ${call.path}`)
    .filter((call) => /^(upload|createSigningRequest|addParticipant|prepare) /.test(call));

describe('a batch of an earlier version that holds requests, not bound to a connection', () => {
  it('is never sent by a connection that has not proved it holds them: it stops saying why, and no service hears of it', async () => {
    const own = await startSimulator({ seed: 231 });
    const other = await startSimulator({ seed: 232 });
    services = [own, other];
    files = makeTempFolder('hollow-earlier-');
    const dataDir = files.file('data');
    // An earlier version sent the first document to its own service, without recording where.
    desk = await openTestDesk(own, dataDir);
    const batch = await makeBatch(desk, files, 2);
    const [first, second] = batch.documents;
    const sent = await sendingAsEarlierVersion(desk.store, () =>
      desk!.engine.send(batch.id, [first!.draft.id]),
    );
    expect(sent).toMatchObject({ prepared: 1 });
    expect(desk.store.get(batch.id)?.connection).toBeUndefined();
    await desk.close();

    // Today's app opens the data folder with another connection active, and Send is pressed.
    desk = await openTestDesk(other, dataDir);
    const summary = await desk.engine.send(batch.id);
    // Nothing of the batch went anywhere: not the second document, not the first's next steps.
    expect(sendingCalls(other)).toEqual([]);
    expect(summary).toMatchObject({
      state: 'stopped',
      reason:
        'This batch was sent by an earlier version of the app, which did not record its connection: it is continued only once the service that holds its requests is known. Make that connection the active one.',
    });
    expect(own.state.countByExternalReference()).toEqual({ 'REF-1': 1 });
    const after = desk.store.get(batch.id)!;
    expect(after.connection).toBeUndefined();
    expect(phaseOf(after.documents.find((document) => document.draft.id === second!.draft.id)!)).toBe(
      phaseOf(second!),
    );
  });
});
