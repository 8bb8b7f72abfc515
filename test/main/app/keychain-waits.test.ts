import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import {
  createMemoryCredentialStore,
  type CredentialStore,
} from '../../../main/credentials/credential-store';
import { openDataDir, type DataDir } from '../../../main/desk-core';
import { DEMO_CLIENT } from '../../../simulator/simulator';
import { createTestDeskService } from '../../support/desk-service-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { promptingKeychain } from '../../support/prompting-keychain';

let files: TempFolder;
let dataDir: DataDir;
let service: DeskService | undefined;
const waits: { waiting: boolean; at: number }[] = [];

beforeEach(async () => {
  files = makeTempFolder('keychain-waits-');
  const opened = await openDataDir(files.file('data'));
  if (!opened.ok) throw new Error(opened.message);
  dataDir = opened.value;
  waits.length = 0;
});

afterEach(async () => {
  await service?.close();
  service = undefined;
  await dataDir.close();
  files.remove();
});

function open(credentials: CredentialStore): DeskService {
  service = createTestDeskService(dataDir, credentials, {
    emit: (event, payload) => {
      if (event === 'keychain.waiting')
        waits.push({ waiting: (payload as { waiting: boolean }).waiting, at: Date.now() });
    },
  });
  return service;
}

const profile = {
  name: 'Production',
  baseUrl: 'https://sign.example.com',
  clientId: DEMO_CLIENT.clientId,
  secret: DEMO_CLIENT.clientSecret,
};

it('saving while the keychain shows its own prompt: the page is told within a second, and told again once it answered', async () => {
  const keychain = promptingKeychain();
  keychain.lock();
  const { handlers } = open(keychain.credentials);
  const started = Date.now();
  let saved = false;
  const saving = handlers['profiles.save'](profile).then(() => (saved = true));
  await expect.poll(() => waits.length, { timeout: 1_000, interval: 20 }).toBe(1);
  expect(waits[0]?.waiting).toBe(true);
  expect(waits[0]!.at - started).toBeLessThan(1_000);
  expect(saved).toBe(false);

  keychain.answer(); // the person typed the keychain's password
  await saving;
  expect(waits.map((wait) => wait.waiting)).toEqual([true, false]);
  expect((await handlers['profiles.list']())[0]).toMatchObject({ name: 'Production', hasSecret: true });
});

it('a keychain that answers at once: nothing is said', async () => {
  const { handlers } = open(createMemoryCredentialStore());
  await handlers['profiles.save'](profile);
  await handlers['profiles.list']();
  await new Promise((resolve) => setTimeout(resolve, 400));
  expect(waits).toEqual([]);
});

it('testing a connection whose secret is behind the keychain prompt: the wait is said too', async () => {
  const keychain = promptingKeychain();
  const { handlers } = open(keychain.credentials);
  await handlers['profiles.save']({ ...profile, baseUrl: 'http://127.0.0.1:9' });
  keychain.lock();
  const testing = handlers['profiles.test']('Production');
  await expect
    .poll(() => waits.map((wait) => wait.waiting), { timeout: 1_000, interval: 20 })
    .toEqual([true]);
  keychain.answer();
  await testing;
  expect(waits.map((wait) => wait.waiting)).toEqual([true, false]);
});
