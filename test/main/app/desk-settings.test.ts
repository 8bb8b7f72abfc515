/** The person's settings outlive a restart: the language the desk speaks, and paused tracking. */
import { afterEach, describe, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import { createMemoryCredentialStore } from '../../../main/credentials/credential-store';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import { posixLocales } from '../../../main/app/system-locales';
import { createTestDeskService } from '../../support/desk-service-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

let files: TempFolder | undefined;
let opened: { dataDir: DataDir; service: DeskService } | undefined;

afterEach(async () => {
  await closeApp();
  files?.remove();
});

async function openApp(path: string, systemLocales: readonly string[]): Promise<DeskService> {
  const result = await openDataDir(path);
  if (!result.ok) throw new Error(result.error);
  const service = createTestDeskService(result.value, createMemoryCredentialStore(), { systemLocales });
  opened = { dataDir: result.value, service };
  await service.start();
  return service;
}

async function closeApp(): Promise<void> {
  await opened?.service.close();
  await opened?.dataDir.close();
  opened = undefined;
}

describe('settings', () => {
  it('follows the system language with its region, and a chosen language is kept across a restart', async () => {
    files = makeTempFolder('desk-settings-');
    const path = files.file('data');
    let service = await openApp(path, ['fr-CH', 'en-US']);
    expect(await service.handlers['app.info']()).toMatchObject({
      language: 'fr',
      locale: 'fr-CH',
      languageSetting: 'system',
      systemLanguage: 'fr',
    });
    expect(await service.handlers['app.setLanguage']('de')).toMatchObject({
      language: 'de',
      locale: 'de',
      languageSetting: 'de',
      systemLanguage: 'fr',
    });
    await closeApp();

    service = await openApp(path, ['fr-CH']);
    expect(await service.handlers['app.info']()).toMatchObject({ language: 'de', languageSetting: 'de' });
    await service.handlers['app.setLanguage']('system');
    expect(await service.handlers['app.info']()).toMatchObject({ language: 'fr', locale: 'fr-CH' });
  });

  it('a system language the desk does not speak gives English', async () => {
    files = makeTempFolder('desk-settings-');
    const service = await openApp(files.file('data'), ['ja-JP']);
    expect(await service.handlers['app.info']()).toMatchObject({ language: 'en', locale: 'en' });
  });

  it('"Pause tracking" is remembered after a restart', async () => {
    files = makeTempFolder('desk-settings-');
    const path = files.file('data');
    let service = await openApp(path, []);
    await service.handlers['tracking.setPaused'](true);
    await closeApp();
    service = await openApp(path, []);
    expect((await service.handlers['app.info']()).trackingPaused).toBe(true);
    expect(service.trackingPaused()).toBe(true);
  });

  it('reads the POSIX environment for the browser host and the command line', () => {
    expect(posixLocales({ LANGUAGE: 'de_AT:fr', LANG: 'en_US.UTF-8' })).toEqual(['de-AT', 'fr', 'en-US']);
    expect(posixLocales({ LANG: 'C.UTF-8', LC_ALL: 'POSIX' })).toEqual([]);
  });
});
