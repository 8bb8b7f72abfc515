/**
 * The app's entry point and the address rule (main/client/base-url.ts): saving a connection
 * through the desk service's `profiles.save` channel, as the page does (dispatchInvoke), refuses
 * an address that fails the rule, in the person's language, and keeps nothing: no profile, no
 * secret in the keychain.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import { dispatchInvoke } from '../../../main/app/ipc-dispatch';
import {
  createMemoryCredentialStore,
  type CredentialStore,
} from '../../../main/credentials/credential-store';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import { silentLogger } from '../../../main/base/log';
import { createTestDeskService } from '../../support/desk-service-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

let files: TempFolder;
let dataDir: DataDir;
let service: DeskService;
let credentials: CredentialStore;

beforeEach(async () => {
  files = makeTempFolder('profile-save-address-');
  const opened = await openDataDir(files.file('data'));
  if (!opened.ok) throw new Error(opened.error);
  dataDir = opened.value;
  credentials = createMemoryCredentialStore();
  service = createTestDeskService(dataDir, credentials);
  await service.start();
});

afterEach(async () => {
  await service.close();
  await dataDir.close();
  files.remove();
});

/** Saves a connection to `baseUrl` the way the page does: through the one IPC entry point. */
function save(baseUrl: string) {
  return dispatchInvoke(
    service.handlers,
    'profiles.save',
    [{ name: 'Office', baseUrl, clientId: 'desk', secret: 'the-client-secret' }],
    silentLogger,
  );
}

async function nothingKept(): Promise<void> {
  expect(await dispatchInvoke(service.handlers, 'profiles.list', [], silentLogger)).toEqual({
    ok: true,
    value: [],
  });
  expect(await credentials.readSecret('Office')).toEqual({ ok: true, value: undefined });
}

describe('profiles.save follows the address rule', () => {
  it.each([
    [
      'http://sign.example.com',
      'The base URL must use https:// so the client secret is encrypted on the way; http:// is accepted only for this computer (localhost, 127.0.0.1 to 127.255.255.255, or [::1]).',
    ],
    [
      'https://desk:hunter2@sign.example.com',
      'The base URL cannot contain a user name or password; the client id and secret are entered separately.',
    ],
    [
      'http://user@127.0.0.1:4010',
      'The base URL cannot contain a user name or password; the client id and secret are entered separately.',
    ],
    ['https://sign.example.com/?tenant=1', 'The base URL cannot contain a query (?…) or fragment (#…).'],
    ['https://sign.example.com/#f', 'The base URL cannot contain a query (?…) or fragment (#…).'],
    ['javascript:alert(1)', 'The base URL must start with https://, e.g. https://sign.example.com.'],
    [
      // Beyond the rule's 2,048 characters (and within what the IPC lets through), said as such.
      `https://sign.example.com/${'a'.repeat(2_975)}`,
      'The base URL is too long: 3,000 characters, at most 2,048 are accepted. A service address is much shorter, e.g. https://sign.example.com.',
    ],
  ])('refuses %.60s, saying why, and keeps nothing', async (baseUrl, message) => {
    expect(await save(baseUrl)).toEqual({ ok: false, error: { code: 'invalid_profile', message } });
    await nothingKept();
  });

  it('says why in the person’s language', async () => {
    await service.handlers['app.setLanguage']('fr');
    expect(await save('https://a:b@sign.example.com')).toEqual({
      ok: false,
      error: {
        code: 'invalid_profile',
        message:
          'L’URL de base ne peut pas contenir de nom d’utilisateur ni de mot de passe\u00a0; l’identifiant client et le secret se saisissent à part.',
      },
    });
    await service.handlers['app.setLanguage']('de');
    expect(await save('http://sign.example.com')).toEqual({
      ok: false,
      error: {
        code: 'invalid_profile',
        message:
          'Die Basis-URL muss https:// verwenden, damit das Client-Secret verschlüsselt übertragen wird; http:// ist nur für diesen Computer zulässig (localhost, 127.0.0.1 bis 127.255.255.255 oder [::1]).',
      },
    });
    await nothingKept();
  });

  it.each([
    ['http://127.0.0.2:4010/', 'http://127.0.0.2:4010'],
    ['http://0x7f000001:4010', 'http://127.0.0.1:4010'],
    ['HTTP://LOCALHOST:4010', 'http://localhost:4010'],
    ['http://[::1]:4010', 'http://[::1]:4010'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
  ])('accepts %j, kept as %j', async (baseUrl, kept) => {
    const saved = await save(baseUrl);
    expect(saved).toMatchObject({ ok: true, value: { name: 'Office', baseUrl: kept, hasSecret: true } });
  });
});
