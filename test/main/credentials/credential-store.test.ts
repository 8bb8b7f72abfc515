import { writeFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeytarCredentialStore,
  KEYCHAIN_UNAVAILABLE_MESSAGE,
  type CredentialStore,
} from '../../../main/credentials/credential-store';
import { Secret } from '../../../main/base/secret';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import {
  distinctSecret,
  environmentWithoutDbus,
  expectNoSecret,
  lastJsonLine,
  repoModule,
  requireKeychain,
  runNode,
  runScriptWithoutDbus,
  testKeychainService,
} from './keychain-fixtures';

/**
 * The credential store against the real Secret Service (gnome-keyring under dbus-run-session,
 * started by `npm test`), and in child processes where no keychain can be reached.
 */
const service = testKeychainService();
const secrets: string[] = [];
const usedAccounts = new Set<string>();
let store: CredentialStore;
let files: TempFolder;

function newSecret(label: string): string {
  const value = distinctSecret(label);
  secrets.push(value);
  return value;
}

function account(name: string): string {
  usedAccounts.add(name);
  return name;
}

beforeAll(async () => {
  files = makeTempFolder('desk-credentials-');
  store = createKeytarCredentialStore(service);
  await requireKeychain(store);
});

afterAll(async () => {
  for (const name of usedAccounts) await store?.deleteSecret(name);
  files?.remove();
});

describe('the keytar credential store on a real Secret Service', () => {
  it('answers a probe without changing anything', async () => {
    expect(await store.probe()).toEqual({ ok: true, value: undefined });
  });

  it('saves, reads back, replaces and deletes a secret', async () => {
    const name = account('sandbox');
    const first = newSecret('first');
    const second = newSecret('second');

    expect(await store.hasSecret(name)).toEqual({ ok: true, value: false });
    expect(await store.saveSecret(name, new Secret(first))).toEqual({ ok: true, value: undefined });
    expect(await store.hasSecret(name)).toEqual({ ok: true, value: true });
    const read = await store.readSecret(name);
    expect(read.ok && read.value?.reveal()).toBe(first);

    expect((await store.saveSecret(name, new Secret(second))).ok).toBe(true);
    const replaced = await store.readSecret(name);
    expect(replaced.ok && replaced.value?.reveal()).toBe(second);

    expect(await store.deleteSecret(name)).toEqual({ ok: true, value: true });
    expect(await store.readSecret(name)).toEqual({ ok: true, value: undefined });
    expect(await store.hasSecret(name)).toEqual({ ok: true, value: false });
    expect(await store.deleteSecret(name)).toEqual({ ok: true, value: false });
  });

  it('keeps secrets apart by profile name and by service name', async () => {
    const production = account('production');
    const staging = account('staging');
    const productionSecret = newSecret('production');
    await store.saveSecret(production, new Secret(productionSecret));
    await store.saveSecret(staging, new Secret(newSecret('staging')));

    const read = await store.readSecret(production);
    expect(read.ok && read.value?.reveal()).toBe(productionSecret);
    const otherService = createKeytarCredentialStore(testKeychainService());
    expect(await otherService.readSecret(production)).toEqual({ ok: true, value: undefined });
  });

  it('round-trips a secret with non-ASCII characters, quotes and spaces unchanged', async () => {
    const name = account('Démo (built-in simulator)');
    const value = `${newSecret('unicode')} é"ü ✓ \\ end`;
    secrets.push(value);
    await store.saveSecret(name, new Secret(value));
    const read = await store.readSecret(name);
    expect(read.ok && read.value?.reveal()).toBe(value);
  });

  it('hands the secret out only as a Secret that prints as [redacted]', async () => {
    const name = account('printing');
    await store.saveSecret(name, new Secret(newSecret('printing')));
    const read = await store.readSecret(name);
    expect(read.ok && read.value).toBeInstanceOf(Secret);
    expectNoSecret(read, secrets);
    expect(inspect(read, { depth: 5 })).not.toMatch(/s3cret-/);
    expect(JSON.stringify(read)).toBe('{"ok":true,"value":"[redacted]"}');
  });
});

describe('without a keychain', () => {
  it('reports every operation as keychain_unavailable, with the actionable message, when no D-Bus session exists', async () => {
    const secret = newSecret('no-dbus');
    const run = await runScriptWithoutDbus(
      files.path,
      'no-dbus',
      `
import { createKeytarCredentialStore } from '${repoModule('main/credentials/credential-store.ts')}';
import { Secret } from '${repoModule('main/base/secret.ts')}';
const store = createKeytarCredentialStore('${service}');
const results = {
  probe: await store.probe(),
  save: await store.saveSecret('sandbox', new Secret(process.env.TEST_SECRET ?? '')),
  read: await store.readSecret('sandbox'),
  has: await store.hasSecret('sandbox'),
  remove: await store.deleteSecret('sandbox'),
};
console.log(JSON.stringify(results));
`,
      { TEST_SECRET: secret },
    );
    const results = lastJsonLine(run) as Record<
      string,
      { ok: boolean; error: { code: string; message: string; detail: string } }
    >;
    expect(Object.keys(results)).toEqual(['probe', 'save', 'read', 'has', 'remove']);
    for (const result of Object.values(results)) {
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'keychain_unavailable', message: KEYCHAIN_UNAVAILABLE_MESSAGE },
      });
      // The real keytar was loaded and failed for the real reason, not a missing module.
      expect(result.error.detail).toMatch(/D-Bus/);
    }
    expect(KEYCHAIN_UNAVAILABLE_MESSAGE).toMatch(/install and unlock a Secret Service keyring/);
    expect(run.code).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(secret);
  });

  it('reports keychain_unavailable, not a crash, when the native keytar module cannot be loaded', async () => {
    // Bundled into a folder outside the project, the program cannot resolve keytar at run time.
    const entry = files.file('missing-module.ts');
    writeFileSync(
      entry,
      `
import { createKeytarCredentialStore } from '${repoModule('main/credentials/credential-store.ts')}';
import { Secret } from '${repoModule('main/base/secret.ts')}';
const store = createKeytarCredentialStore('${service}');
console.log(JSON.stringify({ save: await store.saveSecret('sandbox', new Secret('x')), read: await store.readSecret('sandbox') }));
`,
    );
    const outfile = files.file('missing-module.mjs');
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile,
      logLevel: 'error',
    });
    const run = await runNode([outfile], environmentWithoutDbus());
    const results = lastJsonLine(run) as Record<
      string,
      { ok: boolean; error: { code: string; message: string; detail: string } }
    >;
    for (const result of Object.values(results)) {
      expect(result).toMatchObject({
        ok: false,
        error: { code: 'keychain_unavailable', message: KEYCHAIN_UNAVAILABLE_MESSAGE },
      });
      expect(result.error.detail).toMatch(/keytar module cannot be loaded/);
    }
    expect(run.code).toBe(0);
  });

  it('says the keychain is missing in the language of the call (French)', async () => {
    const entry = files.file('missing-module-fr.ts');
    writeFileSync(
      entry,
      `
import { createKeytarCredentialStore } from '${repoModule('main/credentials/credential-store.ts')}';
import { Secret } from '${repoModule('main/base/secret.ts')}';
import { speaking } from '${repoModule('main/base/words.ts')}';
import { createTranslator } from '${repoModule('shared/i18n/translator.ts')}';
const store = createKeytarCredentialStore('${service}');
const save = await speaking(createTranslator('fr').t, () => store.saveSecret('sandbox', new Secret('x')));
console.log(JSON.stringify({ save }));
`,
    );
    const outfile = files.file('missing-module-fr.mjs');
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile,
      logLevel: 'error',
    });
    const run = await runNode([outfile], environmentWithoutDbus());
    const { save } = lastJsonLine(run) as { save: { ok: boolean; error: { code: string; message: string } } };
    expect(save).toMatchObject({ ok: false, error: { code: 'keychain_unavailable' } });
    expect(save.error.message).toMatch(/^Aucun trousseau n’est disponible/);
    expect(run.code).toBe(0);
  });
});
