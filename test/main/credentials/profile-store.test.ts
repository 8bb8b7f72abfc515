import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeytarCredentialStore,
  KEYCHAIN_UNAVAILABLE_MESSAGE,
  type CredentialStore,
} from '../../../main/credentials/credential-store';
import type { ProfileInput } from '../../../shared/ipc/contract';
import {
  createProfileStore,
  PROFILES_FILE,
  type ProfileResult,
  type ProfileStore,
} from '../../../main/credentials/profile-store';
import { sealSecret, unsealSecret } from '../../../main/credentials/sealed-secret';
import { KEYCHAIN_ID_FILE, ownerAccount } from '../../../main/credentials/folder-identity';
import { Secret } from '../../../main/base/secret';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { giveKeychainId, keychainIdOf, savedSecretAccount } from '../../support/keychain-accounts';
import {
  distinctSecret,
  expectNoSecret,
  filesContaining,
  lastJsonLine,
  repoModule,
  requireKeychain,
  runScriptWithoutDbus,
  testKeychainService,
} from './keychain-fixtures';

/**
 * Profiles in `<dataDir>/profiles.json` with their secrets in the real Secret Service. Every
 * secret used here is recorded, and after the run no file of any data folder may contain one.
 */
const service = testKeychainService();
const secrets: string[] = [];
const dataDirs: string[] = [];
let files: TempFolder;
let credentials: CredentialStore;

function newSecret(label: string): string {
  const value = distinctSecret(label);
  secrets.push(value);
  return value;
}

function newDataDir(label: string): string {
  const path = files.file(label);
  dataDirs.push(path);
  return path;
}

function openStore(dataDir: string): ProfileStore {
  return createProfileStore({ dataDir, credentials });
}

/** The value of a successful result; fails the test with the failure otherwise. */
function valueOf<T>(result: ProfileResult<T>): T {
  expectNoSecret(result, secrets);
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}

function failureOf<T>(result: ProfileResult<T>) {
  expectNoSecret(result, secrets);
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}

function readProfilesFile(dataDir: string): unknown {
  return JSON.parse(readFileSync(join(dataDir, PROFILES_FILE), 'utf8'));
}

const sandbox = (secret?: string): ProfileInput => ({
  name: 'Sandbox',
  baseUrl: 'https://sandbox.sign.example.com/',
  clientId: 'desk-sandbox',
  ...(secret === undefined ? {} : { secret }),
});

beforeAll(async () => {
  files = makeTempFolder('desk-profiles-');
  credentials = createKeytarCredentialStore(service);
  await requireKeychain(credentials);
});

afterAll(async () => {
  // Leave nothing in the keychain: every name any test used, in every spelling it used, in
  // every data folder, and the earlier version's entries some tests left.
  const names = ['Sandbox', 'Production', 'Ghost', 'Long', 'Replaced', 'Only settings', 'Earlier'];
  for (const dataDir of dataDirs) {
    if (!existsSync(join(dataDir, KEYCHAIN_ID_FILE))) continue;
    for (const name of names) await credentials?.deleteSecret(savedSecretAccount(dataDir, name));
    await credentials?.deleteSecret(ownerAccount(keychainIdOf(dataDir)));
  }
  for (const name of names) await credentials?.deleteSecret(name);
  files?.remove();
});

describe('saving, listing and deleting profiles', () => {
  it('saves a profile: settings in profiles.json, the secret in the keychain only', async () => {
    const dataDir = newDataDir('save');
    const store = openStore(dataDir);
    const secret = newSecret('sandbox');

    const saved = valueOf(await store.save(sandbox(secret)));
    expect(saved).toEqual({
      name: 'Sandbox',
      baseUrl: 'https://sandbox.sign.example.com',
      clientId: 'desk-sandbox',
      hasSecret: true,
    });
    expect(readProfilesFile(dataDir)).toEqual({
      version: 1,
      profiles: [{ name: 'Sandbox', baseUrl: 'https://sandbox.sign.example.com', clientId: 'desk-sandbox' }],
    });
    expect(statSync(join(dataDir, PROFILES_FILE)).mode & 0o777).toBe(0o600);
    // Filed under this data folder's own name, so no other data folder shares it.
    expect(await credentials.hasSecret('Sandbox')).toEqual({ ok: true, value: false });
    const inKeychain = await credentials.readSecret(savedSecretAccount(dataDir, 'Sandbox'));
    // Kept with the address it was saved for, so that it only ever goes there.
    const sealedFor = { baseUrl: 'https://sandbox.sign.example.com', clientId: 'desk-sandbox' };
    const unsealed =
      inKeychain.ok && inKeychain.value ? unsealSecret(inKeychain.value, sealedFor) : undefined;
    expect(unsealed?.ok && unsealed.value.reveal()).toBe(secret);

    expect(valueOf(await store.list())).toEqual([saved]);
    const connection = valueOf(await store.connectionFor('sandbox'));
    expect(connection.baseUrl).toBe('https://sandbox.sign.example.com');
    expect(connection.clientId).toBe('desk-sandbox');
    expect(connection.clientSecret.reveal()).toBe(secret);
    expect(inspect(connection)).not.toContain(secret);
    await store.delete('Sandbox');
  });

  it('replaces a profile of the same name, whatever its case, keeping its first spelling', async () => {
    const dataDir = newDataDir('replace');
    const store = openStore(dataDir);
    valueOf(await store.save({ ...sandbox(newSecret('old')), name: 'Replaced' }));
    const newer = newSecret('new');

    const replaced = valueOf(
      await store.save({
        name: '  REPLACED ',
        baseUrl: 'https://other.example.com/api/',
        clientId: 'desk-2',
        secret: newer,
      }),
    );
    expect(replaced).toEqual({
      name: 'Replaced',
      baseUrl: 'https://other.example.com/api',
      clientId: 'desk-2',
      hasSecret: true,
    });
    expect(valueOf(await store.list())).toEqual([replaced]);
    expect(valueOf(await store.connectionFor('replaced')).clientSecret.reveal()).toBe(newer);

    // No secret given, same service: the saved one is kept (e.g. only the name's case changed).
    const kept = valueOf(
      await store.save({ name: 'replaced', baseUrl: 'https://other.example.com/api', clientId: 'desk-2' }),
    );
    expect(kept.hasSecret).toBe(true);
    expect(valueOf(await store.connectionFor('Replaced')).clientSecret.reveal()).toBe(newer);

    // No secret given, another address or client id: refused, so the secret never goes elsewhere.
    for (const moved of [
      { baseUrl: 'https://third.example.com', clientId: 'desk-2' },
      { baseUrl: 'https://other.example.com/api', clientId: 'desk-3' },
    ]) {
      const refused = await store.save({ name: 'Replaced', ...moved });
      expect(refused).toMatchObject({
        ok: false,
        error: {
          code: 'invalid_profile',
          issues: [{ field: 'secret', message: expect.stringContaining('Enter the client secret again') }],
        },
      });
    }
    expect(valueOf(await store.list())).toEqual([replaced]);
    valueOf(await store.delete('Replaced'));
  });

  it('lists several profiles in creation order, each telling whether it has a secret', async () => {
    const dataDir = newDataDir('list');
    const store = openStore(dataDir);
    valueOf(await store.save(sandbox(newSecret('list-sandbox'))));
    valueOf(
      await store.save({ name: 'Production', baseUrl: 'https://sign.example.com', clientId: 'desk-prod' }),
    );

    expect(valueOf(await store.list())).toEqual([
      {
        name: 'Sandbox',
        baseUrl: 'https://sandbox.sign.example.com',
        clientId: 'desk-sandbox',
        hasSecret: true,
      },
      { name: 'Production', baseUrl: 'https://sign.example.com', clientId: 'desk-prod', hasSecret: false },
    ]);
    const missing = failureOf(await store.connectionFor('production'));
    expect(missing.code).toBe('secret_missing');
    expect(missing.message).toBe(
      'The connection profile "Production" has no saved client secret. Enter its client secret in Connections and save it, then try again.',
    );

    valueOf(await store.delete('SANDBOX'));
    expect(await credentials.hasSecret(savedSecretAccount(dataDir, 'Sandbox'))).toEqual({
      ok: true,
      value: false,
    });
    expect(valueOf(await store.list()).map((profile) => profile.name)).toEqual(['Production']);
    valueOf(await store.delete('Production'));
    expect(valueOf(await store.list())).toEqual([]);
    expect(failureOf(await store.delete('Production'))).toMatchObject({
      code: 'profile_not_found',
      message:
        'There is no connection profile named "Production". Check the name, or create the profile first.',
    });
    expect(failureOf(await store.connectionFor('nobody')).code).toBe('profile_not_found');
  });

  it('keeps the active profile in the same file, and forgets it when that profile is deleted', async () => {
    const dataDir = newDataDir('active');
    const store = openStore(dataDir);
    expect(valueOf(await store.activeName())).toBeUndefined();
    valueOf(await store.save(sandbox(newSecret('active'))));
    valueOf(
      await store.save({ name: 'Production', baseUrl: 'https://sign.example.com', clientId: 'desk-prod' }),
    );

    expect(valueOf(await store.setActive('sandbox'))).toBe('Sandbox');
    expect(valueOf(await openStore(dataDir).activeName())).toBe('Sandbox');
    expect(readProfilesFile(dataDir)).toMatchObject({ activeProfile: 'Sandbox' });
    expect(failureOf(await store.setActive('Staging')).code).toBe('profile_not_found');

    valueOf(await store.delete('Production'));
    expect(valueOf(await store.activeName())).toBe('Sandbox');
    valueOf(await store.delete('Sandbox'));
    expect(valueOf(await store.activeName())).toBeUndefined();
    expect(readProfilesFile(dataDir)).toEqual({ version: 1, profiles: [] });
  });

  it('does not hand a secret the data folder kept for an older profile to a new one of that name', async () => {
    const dataDir = newDataDir('ghost');
    giveKeychainId(dataDir);
    const ghost = savedSecretAccount(dataDir, 'Ghost');
    await credentials.saveSecret(ghost, new Secret(newSecret('ghost')));
    const store = openStore(dataDir);

    const created = valueOf(
      await store.save({ name: 'Ghost', baseUrl: 'https://new.example.com', clientId: 'desk-new' }),
    );
    expect(created.hasSecret).toBe(false);
    expect(await credentials.hasSecret(ghost)).toEqual({ ok: true, value: false });
    expect(failureOf(await store.connectionFor('Ghost')).code).toBe('secret_missing');
    valueOf(await store.delete('Ghost'));
  });

  it('runs concurrent saves one after the other, so none is lost', async () => {
    const dataDir = newDataDir('concurrent');
    const store = openStore(dataDir);
    const names = ['Sandbox', 'Production', 'Only settings'];
    await Promise.all(
      names.map((name) => store.save({ name, baseUrl: 'https://sign.example.com', clientId: `id-${name}` })),
    );
    expect(valueOf(await store.list()).map((profile) => profile.name)).toEqual(names);
    for (const name of names) valueOf(await store.delete(name));
  });
});

describe('bad input', () => {
  async function rejected(input: ProfileInput) {
    const dataDir = newDataDir(`invalid-${dataDirs.length}`);
    const failure = failureOf(await openStore(dataDir).save(input));
    // Nothing is written and no secret is saved (the folder would have its keychain id).
    expect(existsSync(join(dataDir, PROFILES_FILE))).toBe(false);
    expect(existsSync(join(dataDir, KEYCHAIN_ID_FILE))).toBe(false);
    if (failure.code !== 'invalid_profile') throw new Error(`expected invalid_profile, got ${failure.code}`);
    return failure;
  }

  it.each([
    ['', 'The name is required.'],
    ['    ', 'The name is required.'],
    ['x'.repeat(65), 'The name must be at most 64 characters.'],
    ['two\nlines', 'The name cannot contain control characters such as line breaks.'],
  ])('rejects the name %j', async (name, message) => {
    const failure = await rejected({ ...sandbox(newSecret('bad-name')), name });
    expect(failure.issues).toEqual([{ field: 'name', message }]);
    expect(failure.message).toBe(message);
  });

  it('accepts a name of 64 characters, trimmed', async () => {
    const store = openStore(newDataDir('long-name'));
    const name = 'L'.repeat(64);
    expect(valueOf(await store.save({ ...sandbox(), name: `  ${name}  ` })).name).toBe(name);
  });

  const httpsOnly =
    'The base URL must use https:// so the client secret is encrypted on the way; http:// is accepted only for this computer (localhost, 127.0.0.1 to 127.255.255.255, or [::1]).';
  it.each([
    ['', 'The base URL is required, e.g. https://sign.example.com.'],
    ['sign.example.com', 'The base URL must be a full address, e.g. https://sign.example.com.'],
    ['https://', 'The base URL must be a full address, e.g. https://sign.example.com.'],
    ['ftp://sign.example.com', 'The base URL must start with https://, e.g. https://sign.example.com.'],
    ['file:///etc/passwd', 'The base URL must start with https://, e.g. https://sign.example.com.'],
    ['http://sign.example.com', httpsOnly],
    ['http://10.0.0.5:8080', httpsOnly],
    ['http://localhost.example.com', httpsOnly],
    [
      'https://desk:hunter2@sign.example.com',
      'The base URL cannot contain a user name or password; the client id and secret are entered separately.',
    ],
    ['https://sign.example.com/?tenant=1', 'The base URL cannot contain a query (?…) or fragment (#…).'],
  ])('rejects the base URL %j', async (baseUrl, message) => {
    const failure = await rejected({ ...sandbox(newSecret('bad-url')), baseUrl });
    expect(failure.issues).toEqual([{ field: 'baseUrl', message }]);
  });

  it.each([
    ['http://localhost:8080/', 'http://localhost:8080'],
    ['http://127.0.0.1:9000', 'http://127.0.0.1:9000'],
    ['http://[::1]:9000/sign//', 'http://[::1]:9000/sign'],
    ['  HTTPS://Sign.Example.COM/v1/  ', 'https://sign.example.com/v1'],
  ])('accepts the base URL %j as %j', async (baseUrl, stored) => {
    const store = openStore(newDataDir(`url-${dataDirs.length}`));
    expect(valueOf(await store.save({ ...sandbox(), baseUrl })).baseUrl).toBe(stored);
    valueOf(await store.delete('Sandbox'));
  });

  it('rejects an empty client id and an empty secret, naming every problem at once', async () => {
    const failure = await rejected({
      name: 'Sandbox',
      baseUrl: 'http://example.com',
      clientId: ' ',
      secret: '  ',
    });
    expect(failure.issues).toEqual([
      { field: 'baseUrl', message: httpsOnly },
      { field: 'clientId', message: 'The client id is required.' },
      { field: 'secret', message: 'The client secret cannot be empty.' },
    ]);
    expect(failure.message).toBe(
      `${httpsOnly} The client id is required. The client secret cannot be empty.`,
    );
  });
});

describe('a profiles.json that cannot be read', () => {
  it.each([
    ['not JSON', '{"version": 1, "profiles": [', 'it is not valid JSON'],
    ['of another shape', '{"version": 1, "profiles": [{"name": "Sandbox"}]}', 'at profiles.0.baseUrl'],
    [
      'with a plain http address',
      '{"version": 1, "profiles": [{"name": "A", "baseUrl": "http://sign.example.com", "clientId": "x"}]}',
      'at profiles.0.baseUrl',
    ],
    [
      'with two profiles of one name',
      '{"version": 1, "profiles": [{"name": "A", "baseUrl": "https://a.example", "clientId": "x"}, {"name": "a", "baseUrl": "https://b.example", "clientId": "y"}]}',
      'two profiles have the same name',
    ],
  ])('is reported, never replaced, when it is %s', async (_label, contents, detail) => {
    const dataDir = newDataDir(`corrupt-${dataDirs.length}`);
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, PROFILES_FILE);
    writeFileSync(path, contents);
    const store = openStore(dataDir);

    const results: ProfileResult<unknown>[] = [
      await store.list(),
      await store.save(sandbox(newSecret('corrupt'))),
      await store.delete('A'),
      await store.connectionFor('A'),
      await store.activeName(),
      await store.setActive('A'),
    ];
    for (const result of results) {
      const failure = failureOf(result);
      expect(failure.code).toBe('settings_unreadable');
      expect(failure.message).toContain(`The connection settings file ${path} cannot be read: `);
      expect(failure.message).toContain(detail);
      expect(failure.message).toContain('It was left as it is; restore it from a backup or remove it');
    }
    expect(readFileSync(path, 'utf8')).toBe(contents);
    expect(existsSync(join(dataDir, KEYCHAIN_ID_FILE))).toBe(false);
  });
});

describe('failures leave everything as it was', () => {
  /**
   * A data folder whose profiles.json and keychain-id.json can be read, but in which
   * writeFileAtomic's temporary file (`profiles.json.<pid>.<ms>.tmp`) cannot be created: its
   * path exceeds PATH_MAX. It has its keychain id already, so secrets can be saved.
   */
  function unwritableDataDir(): string {
    const dirLength = 4090 - `/${KEYCHAIN_ID_FILE}`.length;
    let path = files.file(`unwritable-${dataDirs.length}`);
    while (dirLength - path.length > 250) path = join(path, 'd'.repeat(200));
    path = join(path, 'e'.repeat(dirLength - path.length - 1));
    mkdirSync(path, { recursive: true });
    giveKeychainId(path);
    dataDirs.push(path);
    return path;
  }

  it('takes a new secret back out of the keychain when the settings cannot be written', async () => {
    const dataDir = unwritableDataDir();
    const store = openStore(dataDir);
    const failure = failureOf(await store.save({ ...sandbox(newSecret('long')), name: 'Long' }));
    expect(failure.code).toBe('settings_not_saved');
    expect(failure.message).toMatch(
      /^The connection settings could not be saved to .* \(ENAMETOOLONG\)\. Check that/,
    );
    expect(await credentials.hasSecret(savedSecretAccount(dataDir, 'Long'))).toEqual({
      ok: true,
      value: false,
    });
  });

  it('never sends a saved secret to an address written into profiles.json by someone else, and says why without the secret', async () => {
    const dataDir = newDataDir('planted');
    mkdirSync(dataDir, { recursive: true });
    const store = openStore(dataDir);
    const secret = newSecret('planted');
    valueOf(await store.save({ ...sandbox(secret), name: 'Office' }));
    const file = join(dataDir, PROFILES_FILE);
    for (const [from, to] of [
      ['https://sandbox.sign.example.com', 'https://attacker.example'],
      ['https://attacker.example', 'https://sandbox.sign.example.com'],
    ] as const) {
      writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
      const planted = to === 'https://attacker.example';
      const answer = await store.connectionFor('Office');
      if (!planted) {
        expect(valueOf(answer).clientSecret.reveal()).toBe(secret); // put back: it serves again
        continue;
      }
      const failure = failureOf(answer);
      expect(failure.code).toBe('secret_missing');
      expect(failure.message).toContain('was saved for another service address or client id');
      expect(JSON.stringify(failure)).not.toContain(secret);
      expect(valueOf(await store.list())[0]).toMatchObject({
        baseUrl: 'https://attacker.example',
        hasSecret: false,
        secretSavedFor: 'https://sandbox.sign.example.com (client desk-sandbox)',
      });
      // Typing the secret again at the planted address is refused: it would seal it for that address.
      const lure = failureOf(
        await store.save({ ...sandbox(secret), name: 'Office', baseUrl: 'https://attacker.example' }),
      );
      expect(lure.code).toBe('invalid_profile');
      expect(lure.message).toContain('was changed outside the app');
      // Setting the address back in the app (no secret typed) makes the saved secret serve again.
      expect(valueOf(await store.save({ ...sandbox(), name: 'Office' })).hasSecret).toBe(true);
    }
    // The client id is part of the address too.
    writeFileSync(file, readFileSync(file, 'utf8').replace('desk-sandbox', 'other-client'));
    expect(failureOf(await store.connectionFor('Office')).code).toBe('secret_missing');
    valueOf(await store.delete('Office'));
  });

  it('does not use a secret an earlier version saved without its address; entering it again once makes it work', async () => {
    const dataDir = newDataDir('earlier');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(
      join(dataDir, PROFILES_FILE),
      JSON.stringify({
        version: 1,
        profiles: [{ name: 'Earlier', baseUrl: 'https://a.example', clientId: 'x' }],
      }),
    );
    const secret = newSecret('earlier');
    await credentials.saveSecret('Earlier', new Secret(secret));
    const store = openStore(dataDir);
    const failure = failureOf(await store.connectionFor('Earlier'));
    expect(failure.message).toContain('saved by an earlier version without the service address');
    expect(JSON.stringify(failure)).not.toContain(secret);
    expect(valueOf(await store.list())[0]?.hasSecret).toBe(false);
    valueOf(await store.save({ name: 'Earlier', baseUrl: 'https://a.example', clientId: 'x', secret }));
    expect(valueOf(await store.connectionFor('Earlier')).clientSecret.reveal()).toBe(secret);
    valueOf(await store.delete('Earlier'));
  });

  it('puts the previous secret back when replacing a profile fails', async () => {
    const dataDir = unwritableDataDir();
    writeFileSync(
      join(dataDir, PROFILES_FILE),
      JSON.stringify({
        version: 1,
        profiles: [{ name: 'Long', baseUrl: 'https://a.example', clientId: 'x' }],
      }),
    );
    const previous = newSecret('previous');
    await credentials.saveSecret(
      savedSecretAccount(dataDir, 'Long'),
      sealSecret({ baseUrl: 'https://a.example', clientId: 'x' }, new Secret(previous)),
    );
    const store = openStore(dataDir);

    expect(failureOf(await store.save({ ...sandbox(newSecret('next')), name: 'Long' })).code).toBe(
      'settings_not_saved',
    );
    expect(valueOf(await store.connectionFor('Long')).clientSecret.reveal()).toBe(previous);
    expect(valueOf(await store.list())).toEqual([
      { name: 'Long', baseUrl: 'https://a.example', clientId: 'x', hasSecret: true },
    ]);
  });

  it('refuses to save without a keychain, and writes nothing', async () => {
    const dataDir = newDataDir('no-keychain');
    const existing = newDataDir('no-keychain-existing');
    valueOf(
      await openStore(existing).save({ name: 'Only settings', baseUrl: 'https://a.example', clientId: 'x' }),
    );
    const before = readFileSync(join(existing, PROFILES_FILE), 'utf8');
    const secret = newSecret('no-keychain');
    const run = await runScriptWithoutDbus(
      files.path,
      'profiles-without-keychain',
      `
import { createKeytarCredentialStore } from ${JSON.stringify(repoModule('main/credentials/credential-store.ts'))};
import { createProfileStore } from ${JSON.stringify(repoModule('main/credentials/profile-store.ts'))};
const credentials = createKeytarCredentialStore(${JSON.stringify(service)});
const fresh = createProfileStore({ dataDir: ${JSON.stringify(dataDir)}, credentials });
const existing = createProfileStore({ dataDir: ${JSON.stringify(existing)}, credentials });
const input = { name: 'Sandbox', baseUrl: 'https://sign.example.com', clientId: 'desk', secret: process.env.TEST_SECRET ?? '' };
console.log(JSON.stringify({
  save: await fresh.save(input),
  replace: await existing.save({ ...input, name: 'Only settings' }),
  remove: await existing.delete('Only settings'),
  connection: await existing.connectionFor('Only settings'),
  list: await existing.list(),
}));
`,
      { TEST_SECRET: secret },
    );
    const results = lastJsonLine(run) as Record<
      string,
      { ok: boolean; error: { code: string; message: string } }
    >;
    expect(Object.keys(results)).toEqual(['save', 'replace', 'remove', 'connection', 'list']);
    for (const result of Object.values(results)) {
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'keychain_unavailable', message: KEYCHAIN_UNAVAILABLE_MESSAGE },
      });
    }
    expect(run.stdout + run.stderr).not.toContain(secret);
    expect(existsSync(dataDir)).toBe(false);
    expect(readFileSync(join(existing, PROFILES_FILE), 'utf8')).toBe(before);
    valueOf(await openStore(existing).delete('Only settings'));
  });
});

describe('after every test above', () => {
  it('no file of any data folder holds a secret', () => {
    expect(secrets.length).toBeGreaterThan(10);
    for (const dataDir of dataDirs) {
      if (existsSync(dataDir)) expect(filesContaining(dataDir, secrets)).toEqual([]);
    }
    expect(filesContaining(files.path, secrets)).toEqual([]);
  });
});
