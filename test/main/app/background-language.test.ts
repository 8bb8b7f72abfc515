/**
 * Work the desk started goes on after the call that started it has answered (a retry a minute
 * later, the start's opening of a connection while the keychain answers): a change of language
 * in between reaches the words it makes, and the person never reads a message half in the
 * language they left (found by an outside review).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import { PROFILES_FILE } from '../../../main/credentials/profile-store';
import { createTranslator } from '../../../shared/i18n/translator';
import type { Simulator } from '../../../simulator/simulator';
import {
  createTestDeskService,
  draftOneDocumentBatch,
  outcome,
  sendOneDocumentBatch,
} from '../../support/desk-service-harness';
import { sendAsEarlierVersion } from '../../support/earlier-version';
import { savedSecretAccount } from '../../support/keychain-accounts';
import { openTwoServices, saveBothConnections, type TwoServices } from '../../support/two-services';

const german = createTranslator('de').t;

let world: TwoServices;
let service: DeskService;

/** A desk over the data folder, speaking French (the system's language). */
function openService(): DeskService {
  service = createTestDeskService(world.dataDir, world.credentials, {
    clock: world.clock,
    systemLocales: ['fr-FR'],
  });
  return service;
}

beforeEach(async () => {
  world = await openTwoServices('background-language-', [21, 22]);
  await saveBothConnections(openService().handlers, world);
});

afterEach(async () => {
  await world.clock.complete(service.close());
  await world.close();
});

/** Closes the desk and opens it again, in French; its start is left to the caller. */
async function reopen(): Promise<DeskService> {
  await world.clock.complete(service.close());
  return openService();
}

/** A batch an earlier version sent to `sim` without recording its connection. */
async function olderBatchSentTo(sim: Simulator, reference: string): Promise<string> {
  const batchId = await draftOneDocumentBatch(service.handlers, world.files, reference);
  await sendAsEarlierVersion(world, sim, batchId);
  return batchId;
}

/** The batch's connection problem as the batch list shows it, once it satisfies `shows`. */
function problemShowing(batchId: string, shows: (problem: string) => boolean): Promise<string> {
  return outcome(world.clock, `${batchId}'s problem`, async () => {
    const batches = await service.handlers['batches.list']();
    const problem = batches.find((batch) => batch.id === batchId)?.connectionProblem;
    return problem !== undefined && shows(problem) ? problem : undefined;
  });
}

it('an older batch asked about again a minute later, after a switch to German: why it waits is all German', async () => {
  await service.handlers['profiles.activate']('Sandbox');
  const older = await olderBatchSentTo(world.sandbox, 'OLDER');
  await service.handlers['profiles.activate']('Production');
  world.production.faults.set({ latencyMs: 30_000 });
  await reopen();
  await world.clock.complete(service.start());
  // Production did not answer whether it holds the request: asked again in a minute, in the background.
  await problemShowing(older, (problem) => problem.includes('version antérieure'));

  await service.handlers['app.setLanguage']('de');
  // Meanwhile the connection settings became unreadable: the retry cannot tell the active connection.
  const settingsFile = join(world.dataDir.path, PROFILES_FILE);
  writeFileSync(settingsFile, 'not json');
  await world.clock.advance(60_000);

  const reason = german('connections.settingsUnreadable', {
    path: settingsFile,
    detail: german('connections.settingsNotJson'),
  });
  expect(await problemShowing(older, (problem) => problem.includes(settingsFile))).toBe(
    german('connections.olderBatchNoActiveBecause', { reason }),
  );
}, 60_000);

it('a start whose keychain answers after a switch to German: why the batch’s connection cannot be used is all German', async () => {
  await service.handlers['profiles.activate']('Sandbox');
  const batchId = await sendOneDocumentBatch(service.handlers, world.files, 'RH-1', world.clock);
  await world.credentials.deleteSecret(savedSecretAccount(world.dataDir.path, 'Sandbox'));
  // An unlock prompt: the keychain answers after 5 s, held on the clock.
  for (const name of ['Sandbox', 'Production']) world.keychainDelayMs.set(name, 5_000);
  await reopen();
  const started = service.start();
  await service.handlers['app.setLanguage']('de');
  await world.clock.complete(started);

  expect(await problemShowing(batchId, () => true)).toBe(
    german('connections.batchConnectionUnusable', {
      name: 'Sandbox',
      reason: german('connections.secretNone', { name: 'Sandbox' }),
    }),
  );
}, 60_000);
