import { cpSync, mkdirSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../../main/base/secret';
import { testConnection } from '../../../main/credentials/connection-test';
import {
  createKeytarCredentialStore,
  type CredentialStore,
} from '../../../main/credentials/credential-store';
import { ownerAccount } from '../../../main/credentials/folder-identity';
import { profileAccount } from '../../../main/credentials/folder-secrets';
import {
  createProfileStore,
  PROFILES_FILE,
  type ProfileResult,
  type ProfileStore,
} from '../../../main/credentials/profile-store';
import { sealSecret, type SecretAddress } from '../../../main/credentials/sealed-secret';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../../simulator/simulator';
import { keychainIdOf } from '../../support/keychain-accounts';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { expectNoSecret, requireKeychain, testKeychainService } from './keychain-fixtures';

/**
 * Several data folders of one account share its keychain (README "Where things are kept"): each
 * keeps its own secrets. Two folders with a profile of the same name, a folder copied or moved,
 * and the entries an earlier version filed under the bare profile name, against the real Secret
 * Service. "Still calls" is what a person checks: Test connection obtains a token from the
 * simulator with the folder's saved secret.
 */
const service = testKeychainService();
/** Another client of the same simulator, with a secret of its own. */
const OTHER_CLIENT = { ...DEMO_CLIENT, clientId: 'desk-b', clientSecret: 'desk-b-secret-4711' };
const WRONG_SECRET = 'a-mistyped-secret-4711';
const SECRETS = [DEMO_CLIENT.clientSecret, OTHER_CLIENT.clientSecret, WRONG_SECRET];
const NAMES = ['Production'];

let sim: Simulator;
let files: TempFolder;
let credentials: CredentialStore;
/** Every keychain id a folder of this file had, so the run leaves nothing in the keychain. */
const ids = new Set<string>();

beforeAll(async () => {
  sim = await startSimulator({ seed: 23, clients: [DEMO_CLIENT, OTHER_CLIENT] });
  files = makeTempFolder('desk-folder-secrets-');
  credentials = createKeytarCredentialStore(service);
  await requireKeychain(credentials);
});

afterAll(async () => {
  for (const id of ids) {
    for (const name of NAMES) await credentials?.deleteSecret(profileAccount(id, name));
    await credentials?.deleteSecret(ownerAccount(id));
  }
  for (const name of NAMES) await credentials?.deleteSecret(name);
  for (const account of written) await credentials?.deleteSecret(account);
  await sim?.close();
  files?.remove();
});

/** The simulator's address as typed two ways: two service addresses, one service. */
const numericAddress = () => sim.baseUrl.replace('localhost', '127.0.0.1');
const namedAddress = () => numericAddress().replace('127.0.0.1', 'localhost');

function openFolder(path: string): ProfileStore {
  return createProfileStore({ dataDir: path, credentials });
}

function valueOf<T>(result: ProfileResult<T>): T {
  expectNoSecret(result, SECRETS);
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** Every account a {@link recording} store wrote, removed after the run. */
const written = new Set<string>();

/** `store`, remembering every account written through it (an id no folder's file names any more). */
function recording(store: CredentialStore): CredentialStore {
  return {
    ...store,
    saveSecret: (account, secret) => {
      written.add(account);
      return store.saveSecret(account, secret);
    },
  };
}

/** The keychain id `folder` files its secrets under (remembered for the cleanup). */
function idOf(folder: string): string {
  const id = keychainIdOf(folder);
  ids.add(id);
  return id;
}

/** What Test connection says for `name` in `store`: 'token', or why not. */
async function call(store: ProfileStore, name = 'Production'): Promise<string> {
  const connection = await store.connectionFor(name);
  if (!connection.ok) return connection.error.code;
  const tested = await testConnection(connection.value, { retry: { baseDelayMs: 10 } });
  return tested.ok ? 'token' : tested.error.code;
}

async function save(store: ProfileStore, baseUrl: string, client: { clientId: string }, secret?: string) {
  return valueOf(
    await store.save({
      name: 'Production',
      baseUrl,
      clientId: client.clientId,
      ...(secret ? { secret } : {}),
    }),
  );
}

/** A data folder as an earlier version left it: its profiles.json, and no keychain id. */
function earlierFolder(label: string, address: SecretAddress): string {
  const folder = files.file(label);
  mkdirSync(folder, { recursive: true });
  const profile = { name: 'Production', ...address };
  writeFileSync(join(folder, PROFILES_FILE), JSON.stringify({ version: 1, profiles: [profile] }));
  return folder;
}

/** The keychain value an earlier version filed under the bare profile name, sealed for `address`. */
async function fileEarlierEntry(address: SecretAddress, secret: string): Promise<string> {
  const sealed = sealSecret(address, new Secret(secret));
  valueOf(await credentials.saveSecret('Production', sealed));
  return sealed.reveal();
}

async function earlierEntry(): Promise<string | undefined> {
  return valueOf(await credentials.readSecret('Production'))?.reveal();
}

describe('two data folders with a profile of the same name', () => {
  it('at two addresses: saving and deleting it in one leaves the other calling with its own secret', async () => {
    const a = openFolder(files.file('two-a'));
    const b = openFolder(files.file('two-b'));
    await save(a, numericAddress(), DEMO_CLIENT, DEMO_CLIENT.clientSecret);
    await save(b, namedAddress(), OTHER_CLIENT, OTHER_CLIENT.clientSecret);
    expect(idOf(files.file('two-a'))).not.toBe(idOf(files.file('two-b')));
    expect([await call(a), await call(b)]).toEqual(['token', 'token']);

    // B's secret replaced by a mistyped one: B is refused, A still calls.
    await save(b, namedAddress(), OTHER_CLIENT, WRONG_SECRET);
    expect([await call(a), await call(b)]).toEqual(['token', 'credentials_rejected']);

    valueOf(await b.delete('Production'));
    expect(await call(a)).toBe('token');
    expect(valueOf(await a.list())).toMatchObject([{ name: 'Production', hasSecret: true }]);
  });

  it('at the same address: a wrong secret saved in one, then its deletion, leave the other calling', async () => {
    const a = openFolder(files.file('same-a'));
    const b = openFolder(files.file('same-b'));
    await save(a, numericAddress(), DEMO_CLIENT, DEMO_CLIENT.clientSecret);
    await save(b, numericAddress(), DEMO_CLIENT, WRONG_SECRET);
    expect([await call(a), await call(b)]).toEqual(['token', 'credentials_rejected']);

    valueOf(await b.delete('Production'));
    expect(await call(a)).toBe('token');
    // Opened again, as at the next start: A still has its secret.
    expect(await call(openFolder(files.file('same-a')))).toBe('token');
  });
});

describe('a secret an earlier version filed under the bare profile name', () => {
  it('is found by the folder it was sealed for and copied to that folder’s own entry; deleting the connection removes both', async () => {
    const address = { baseUrl: numericAddress(), clientId: DEMO_CLIENT.clientId };
    const folder = earlierFolder('earlier-own', address);
    const left = await fileEarlierEntry(address, DEMO_CLIENT.clientSecret);

    const store = openFolder(folder);
    expect(await call(store)).toBe('token');
    const copied = valueOf(await credentials.readSecret(profileAccount(idOf(folder), 'Production')));
    expect(copied?.reveal()).toBe(left);
    // From the folder's own entry from now on, also after a restart.
    valueOf(await credentials.saveSecret('Production', new Secret('not-the-secret')));
    expect(await call(openFolder(folder))).toBe('token');
    valueOf(await credentials.saveSecret('Production', new Secret(left)));

    valueOf(await store.delete('Production'));
    expect(await earlierEntry()).toBeUndefined();
    expect(valueOf(await credentials.readSecret(profileAccount(idOf(folder), 'Production')))).toBeUndefined();
  });

  it('used by two folders with that connection at that address: both keep calling once one of them took its copy', async () => {
    const address = { baseUrl: numericAddress(), clientId: DEMO_CLIENT.clientId };
    const first = earlierFolder('earlier-shared-first', address);
    const second = earlierFolder('earlier-shared-second', address);
    await fileEarlierEntry(address, DEMO_CLIENT.clientSecret);

    expect(await call(openFolder(first))).toBe('token');
    expect(await call(openFolder(second))).toBe('token');
    idOf(first);
    idOf(second);
  });

  it('sealed for another address, is never used, changed or deleted by a folder: the folder it was sealed for still finds it', async () => {
    const theirs = { baseUrl: numericAddress(), clientId: DEMO_CLIENT.clientId };
    const ours = { baseUrl: namedAddress(), clientId: OTHER_CLIENT.clientId };
    const left = await fileEarlierEntry(theirs, DEMO_CLIENT.clientSecret);
    const other = earlierFolder('earlier-other', ours);
    const store = openFolder(other);

    // Not this folder's: no secret, and not "saved for another address" either.
    expect(valueOf(await store.list())).toEqual([{ name: 'Production', ...ours, hasSecret: false }]);
    expect(await call(store)).toBe('secret_missing');
    await save(store, ours.baseUrl, OTHER_CLIENT, OTHER_CLIENT.clientSecret);
    expect(await call(store)).toBe('token');
    expect(await earlierEntry()).toBe(left);
    valueOf(await store.delete('Production'));
    expect(await earlierEntry()).toBe(left);

    // The folder whose profile it was sealed for still calls with it.
    expect(await call(openFolder(earlierFolder('earlier-theirs', theirs)))).toBe('token');
    idOf(files.file('earlier-theirs'));
  });

  it('cannot be reached through a profile named like another folder’s entry', async () => {
    const a = openFolder(files.file('named-a'));
    await save(a, numericAddress(), DEMO_CLIENT, DEMO_CLIENT.clientSecret);
    const aEntry = profileAccount(idOf(files.file('named-a')), 'Production');
    // A folder whose settings were changed to name A's entry, with A's address.
    const planted = files.file('named-b');
    mkdirSync(planted, { recursive: true });
    const profile = { name: aEntry, baseUrl: numericAddress(), clientId: DEMO_CLIENT.clientId };
    writeFileSync(join(planted, PROFILES_FILE), JSON.stringify({ version: 1, profiles: [profile] }));
    const b = openFolder(planted);

    expect(await call(b, aEntry)).toBe('secret_missing');
    valueOf(await b.delete(aEntry));
    expect(await call(a)).toBe('token');
  });
});

describe('a copied data folder', () => {
  it('takes an id of its own at its first use, keeping its secrets: its saves and deletions leave the original calling', async () => {
    const original = files.file('copy-original');
    const a = openFolder(original);
    await save(a, numericAddress(), DEMO_CLIENT, DEMO_CLIENT.clientSecret);
    const copy = files.file('copy-copy');
    cpSync(original, copy, { recursive: true });

    const c = openFolder(copy);
    expect(await call(c)).toBe('token');
    expect(idOf(copy)).not.toBe(idOf(original));

    await save(c, numericAddress(), DEMO_CLIENT, WRONG_SECRET);
    expect([await call(a), await call(c)]).toEqual(['token', 'credentials_rejected']);
    valueOf(await c.delete('Production'));
    expect(await call(openFolder(original))).toBe('token');
  });

  it('is told apart even when the original was moved away before the copy was first opened', async () => {
    const first = files.file('moved-original');
    await save(openFolder(first), numericAddress(), DEMO_CLIENT, DEMO_CLIENT.clientSecret);
    const id = idOf(first);
    const copy = files.file('moved-copy');
    cpSync(first, copy, { recursive: true });
    const moved = files.file('moved-original-elsewhere');
    renameSync(first, moved);

    // The copy, opened first, deletes its connection.
    valueOf(await openFolder(copy).delete('Production'));
    expect(idOf(copy)).not.toBe(id);

    // The moved original keeps its id and its secret.
    expect(await call(openFolder(moved))).toBe('token');
    expect(idOf(moved)).toBe(id);
  });
  it('opened by two processes at the same moment: a secret saved from either afterwards is the one used after a restart', async () => {
    const original = files.file('race-original');
    await save(openFolder(original), numericAddress(), DEMO_CLIENT, WRONG_SECRET);
    idOf(original);
    const copy = files.file('race-copy');
    cpSync(original, copy, { recursive: true });
    // Two stores of one folder settle apart, as two processes do (the app, a command line run).
    const first = createProfileStore({ dataDir: copy, credentials: recording(credentials) });
    const second = createProfileStore({ dataDir: copy, credentials: recording(credentials) });
    await Promise.all([first.list(), second.list()]);
    idOf(copy);

    await save(first, numericAddress(), DEMO_CLIENT, DEMO_CLIENT.clientSecret);
    expect(await call(openFolder(copy))).toBe('token');
    expect(await call(second)).toBe('token');
  });

  it('with the original’s inode number, where the original was but on another disk (two disks formatted alike), is not the original: its deletion leaves the original calling', async () => {
    const original = files.file('twin-original');
    await save(openFolder(original), numericAddress(), DEMO_CLIENT, DEMO_CLIENT.clientSecret);
    const id = idOf(original);
    const copy = files.file('twin-copy');
    cpSync(original, copy, { recursive: true });
    // The keychain's record of the original as it reads when the original's disk was mounted
    // where the copy is now and gave its folder the copy's inode number: only the device differs.
    const recorded = valueOf(await credentials.readSecret(ownerAccount(id)));
    const owner = JSON.parse(recorded!.reveal()) as Record<string, string>;
    const twin = {
      ...owner,
      home: realpathSync(copy),
      inode: String(statSync(copy, { bigint: true }).ino),
      device: `${owner.device}0`,
    };
    valueOf(await credentials.saveSecret(ownerAccount(id), new Secret(JSON.stringify(twin))));

    valueOf(await openFolder(copy).delete('Production'));
    expect(idOf(copy)).not.toBe(id);

    // The original's disk mounted again: it still calls with its secret.
    valueOf(await credentials.saveSecret(ownerAccount(id), recorded!));
    expect(await call(openFolder(original))).toBe('token');
  });
});

describe('a data folder', () => {
  it('moved or renamed keeps its id and its secrets; deleting its connection there removes its entry', async () => {
    const before = files.file('move-before');
    await save(openFolder(before), numericAddress(), DEMO_CLIENT, DEMO_CLIENT.clientSecret);
    const id = idOf(before);
    const after = files.file('move-after');
    renameSync(before, after);

    const store = openFolder(after);
    expect(await call(store)).toBe('token');
    expect(idOf(after)).toBe(id);
    valueOf(await store.delete('Production'));
    expect(valueOf(await credentials.readSecret(profileAccount(id, 'Production')))).toBeUndefined();
  });

  it('taken to another computer (another keychain) keeps its id there, asks for its secrets, and leaves this keychain alone', async () => {
    const here = files.file('travel-here');
    await save(openFolder(here), numericAddress(), DEMO_CLIENT, DEMO_CLIENT.clientSecret);
    const id = idOf(here);
    const there = files.file('travel-there');
    cpSync(here, there, { recursive: true });
    const otherKeychain = createKeytarCredentialStore(testKeychainService());
    const away = createProfileStore({ dataDir: there, credentials: otherKeychain });

    expect(valueOf(await away.list())).toMatchObject([{ name: 'Production', hasSecret: false }]);
    await save(away, numericAddress(), DEMO_CLIENT, WRONG_SECRET);
    expect(keychainIdOf(there)).toBe(id);
    valueOf(await away.delete('Production'));
    await otherKeychain.deleteSecret(ownerAccount(id));
    // This computer's keychain still holds the folder's secret, untouched.
    const kept = valueOf(await credentials.readSecret(profileAccount(id, 'Production')));
    expect(kept?.reveal()).toContain(DEMO_CLIENT.clientSecret);
  });
});
