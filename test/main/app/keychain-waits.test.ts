import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import {
  createMemoryCredentialStore,
  type CredentialStore,
} from '../../../main/credentials/credential-store';
import { KEYCHAIN_WAIT_NOTICE_MS } from '../../../main/credentials/keychain-watch';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT } from '../../../simulator/simulator';
import { createTestDeskService } from '../../support/desk-service-harness';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { promptingKeychain } from '../../support/prompting-keychain';

let files: TempFolder;
let dataDir: DataDir;
let service: DeskService | undefined;
/** The desk's clock: the keychain notice's delay passes only when the test lets time run. */
let clock: VirtualClock;
/** What the page was told, and when (virtual monotonic ms). */
const waits: { waiting: boolean; at: number }[] = [];

beforeEach(async () => {
  files = makeTempFolder('keychain-waits-');
  clock = new VirtualClock({ startAt: Date.now() });
  const opened = await openDataDir(files.file('data'), { clock });
  if (!opened.ok) throw new Error(opened.error);
  dataDir = opened.value;
  waits.length = 0;
});

afterEach(async () => {
  if (service) await clock.complete(service.close());
  service = undefined;
  await dataDir.close();
  files.remove();
});

function open(credentials: CredentialStore): DeskService {
  service = createTestDeskService(dataDir, credentials, {
    clock,
    emit: (event, payload) => {
      if (event === 'keychain.waiting')
        waits.push({ waiting: (payload as { waiting: boolean }).waiting, at: clock.monotonic() });
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
  const started = clock.monotonic();
  let saved = false;
  const saving = handlers['profiles.save'](profile).then(() => (saved = true));
  // The keychain's call hangs until a person answers its prompt: time passes over it.
  await clock.advanceWhileCallsHang(1_000);
  expect(waits).toHaveLength(1);
  expect(waits[0]?.waiting).toBe(true);
  // Told once the notice's moment has passed, well within a second.
  expect(waits[0]!.at - started).toBe(KEYCHAIN_WAIT_NOTICE_MS);
  expect(waits[0]!.at - started).toBeLessThan(1_000);
  expect(saved).toBe(false);

  keychain.answer(); // the person typed the keychain's password
  await clock.complete(saving);
  expect(waits.map((wait) => wait.waiting)).toEqual([true, false]);
  expect((await handlers['profiles.list']())[0]).toMatchObject({ name: 'Production', hasSecret: true });
});

it('a keychain that answers at once: nothing is said', async () => {
  const { handlers } = open(createMemoryCredentialStore());
  await clock.complete(handlers['profiles.save'](profile));
  await clock.complete(handlers['profiles.list']());
  // A minute later, still nothing (the notice would come after 300 ms).
  await clock.advance(60_000);
  expect(waits).toEqual([]);
});

it('testing a connection whose secret is behind the keychain prompt: the wait is said too', async () => {
  const keychain = promptingKeychain();
  const { handlers } = open(keychain.credentials);
  await clock.complete(handlers['profiles.save']({ ...profile, baseUrl: 'http://127.0.0.1:9' }));
  keychain.lock();
  const testing = handlers['profiles.test']('Production');
  await clock.advanceWhileCallsHang(1_000);
  expect(waits.map((wait) => wait.waiting)).toEqual([true]);
  keychain.answer();
  await clock.complete(testing);
  expect(waits.map((wait) => wait.waiting)).toEqual([true, false]);
});
