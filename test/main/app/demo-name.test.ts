import { afterEach, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import { simulatorDemo } from '../../../main/app/simulator-demo';
import { createMemoryCredentialStore } from '../../../main/credentials/credential-store';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { connectionLabel } from '../../../shared/i18n/connection-label';
import { createTranslator } from '../../../shared/i18n/translator';
import { createTestDeskService, draftOneDocumentBatch } from '../../support/desk-service-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

/**
 * The demo connection's name follows the person's language wherever it is shown (the review
 * before sending, the Connections screen, the top bar), while its stored name stays the key the
 * desk finds it by. The demo service and the desk are on one virtual clock.
 */
let files: TempFolder | undefined;
let opened: { dataDir: DataDir; service: DeskService; demo: ReturnType<typeof simulatorDemo> } | undefined;
const clock = new VirtualClock({ startAt: Date.now() });

afterEach(async () => {
  if (opened) {
    await clock.complete(opened.service.close());
    await opened.demo.close();
    await opened.dataDir.close();
    opened = undefined;
  }
  files?.remove();
});

it('is said in the person’s language, any other connection as its owner named it', () => {
  for (const [language, name] of [
    ['en', 'Demo (built-in simulator)'],
    ['fr', 'Démo (simulateur intégré)'],
    ['de', 'Demo (eingebauter Simulator)'],
  ] as const) {
    const { t } = createTranslator(language);
    expect(connectionLabel({ name: 'Demo (built-in simulator)', demo: true }, t)).toBe(name);
    expect(connectionLabel({ name: 'Production', demo: false }, t)).toBe('Production');
  }
});

it('the review before sending with the demo connection names it in French on a French desk', async () => {
  files = makeTempFolder('demo-name-');
  const path = files.file('data');
  const dataDir = await openDataDir(path, { clock });
  if (!dataDir.ok) throw new Error(dataDir.error);
  const demo = simulatorDemo(path, clock);
  const service = createTestDeskService(dataDir.value, createMemoryCredentialStore(), {
    demo,
    clock,
    systemLocales: ['fr-FR'],
  });
  opened = { dataDir: dataDir.value, service, demo };
  await clock.complete(service.start());
  await clock.complete(service.handlers['profiles.useDemo']());
  const batchId = await draftOneDocumentBatch(service.handlers, files, 'DEMO-FR-1');
  const review = await clock.complete(service.handlers['sending.review'](batchId));
  expect(review.connection?.name).toBe('Démo (simulateur intégré)');
  // Its key stays what the desk finds it by.
  const profiles = await service.handlers['profiles.list']();
  expect(profiles.find((profile) => profile.demo)?.name).toBe('Demo (built-in simulator)');
}, 60_000);
