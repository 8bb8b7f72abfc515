/**
 * Where a data folder's secrets are in the keychain, for tests that change the keychain behind
 * the app's back (a secret lost, an entry an earlier version left). Each data folder files its
 * profiles' secrets under its own id (main/credentials/folder-identity.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KEYCHAIN_ID_FILE } from '../../main/credentials/folder-identity';
import { profileAccount } from '../../main/credentials/folder-secrets';

/** The id in `dataDir`'s keychain-id.json (written the first time a secret was saved from it). */
export function keychainIdOf(dataDir: string): string {
  const parsed = JSON.parse(readFileSync(join(dataDir, KEYCHAIN_ID_FILE), 'utf8')) as { id: string };
  return parsed.id;
}

/** The keychain account of profile `name` of `dataDir`, which has saved a secret before. */
export function savedSecretAccount(dataDir: string, name: string): string {
  return profileAccount(keychainIdOf(dataDir), name);
}

/** The profile name a keychain account of a data folder is for; the account itself when it is none. */
export function profileNameOfAccount(account: string): string {
  return /^folder:[0-9a-f-]{36}\/(.*)$/s.exec(account)?.[1] ?? account;
}

/** Gives `dataDir` (created if needed) a keychain id before anything is saved, as a first save would. */
export function giveKeychainId(dataDir: string): string {
  const id = randomUUID();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, KEYCHAIN_ID_FILE), JSON.stringify({ version: 1, id }));
  return id;
}
