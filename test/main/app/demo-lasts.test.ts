import { afterEach, expect, it } from 'vitest';
import { DEMO_PROFILE_NAME, type DeskService } from '../../../main/app/desk-service';
import { simulatorDemo } from '../../../main/app/simulator-demo';
import { createMemoryCredentialStore } from '../../../main/credentials/credential-store';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { createTestDeskService, outcome, sendAsReviewed } from '../../support/desk-service-harness';
import { makeTempFolder, writePdf, type TempFolder } from '../../support/pdf-files';

/**
 * The demo connection keeps its service data in the data folder: a restart loses nothing. The
 * demo service, the data folder and the desk are on one virtual clock, which outlives the restart.
 */
let files: TempFolder | undefined;
let clock: VirtualClock;
let opened: { dataDir: DataDir; service: DeskService; demo: ReturnType<typeof simulatorDemo> } | undefined;

afterEach(async () => {
  await closeApp();
  files?.remove();
});

async function openApp(path: string): Promise<DeskService> {
  const result = await openDataDir(path, { clock });
  if (!result.ok) throw new Error(result.error);
  const demo = simulatorDemo(path, clock);
  const service = createTestDeskService(result.value, createMemoryCredentialStore(), { demo, clock });
  opened = { dataDir: result.value, service, demo };
  await clock.complete(service.start());
  return service;
}

async function closeApp(): Promise<void> {
  if (!opened) return;
  await clock.complete(opened.service.close());
  await opened.demo.close();
  await opened.dataDir.close();
  opened = undefined;
}

it('a restart between sending and signing with the demo connection loses nothing', async () => {
  files = makeTempFolder('demo-lasts-');
  clock = new VirtualClock({ startAt: Date.now() });
  const path = files.file('data');
  let service = await openApp(path);
  const demoView = await clock.complete(service.handlers['profiles.useDemo']());
  const batch = await service.handlers['batches.create']('Demo batch');
  await service.handlers['documents.addPaths'](batch.id, [
    await writePdf(files, 'demo.pdf', 'Demo contract'),
  ]);
  const [document] = (await service.handlers['batches.get'](batch.id)).documents;
  await service.handlers['documents.update'](batch.id, document!.id, {
    externalReference: 'DEMO-1',
    recipients: [{ participant_type: 'signer', role: 'Employee', name: 'Ann', email: 'ann@example.com' }],
  });
  await sendAsReviewed(service.handlers, batch.id);
  const requestId = await outcome(clock, 'prepared', async () => {
    const [sent] = (await service.handlers['batches.get'](batch.id)).documents;
    return sent?.phase === 'prepared' ? sent.requestId : undefined;
  });

  // The app is closed and started again: the demo comes back at the same address, with its data.
  await closeApp();
  service = await openApp(path);
  const demo = (await service.handlers['profiles.list']()).find((profile) => profile.demo);
  expect(demo).toMatchObject({ name: DEMO_PROFILE_NAME, baseUrl: demoView.baseUrl });
  const signed = await fetch(`${demoView.baseUrl}/__simulator/requests/${requestId}/complete`, {
    method: 'POST',
  });
  expect(signed.ok).toBe(true);
  await service.handlers['tracking.refreshNow']();
  const tracked = await outcome(clock, 'completed', async () => {
    const [after] = (await service.handlers['batches.get'](batch.id)).documents;
    return after?.tracking?.status === 'completed' ? after : undefined;
  });
  expect(tracked.gone).toBe(false);
  expect((await service.handlers['batches.get'](batch.id)).connectionProblem).toBeUndefined();
}, 60_000);
