/**
 * The desk service's ProfileRegistry over the credentials module's ProfileStore (settings in
 * the data folder, secrets in the OS keychain). The store answers failures as values; the port
 * throws them as DeskError, which the IPC entry point turns into `{ ok: false, error }`.
 */
import { DeskError } from './desk-error';
import type { ProfileRegistry } from './ports';
import { createKeytarCredentialStore, type CredentialStore } from '../credentials/credential-store';
import { watchKeychain, type KeychainWaits } from '../credentials/keychain-watch';
import { createProfileStore, type ProfileResult, type ProfileStore } from '../credentials/profile-store';
import type { Clock } from '../time/clock';

async function valueOf<T>(result: Promise<ProfileResult<T>>): Promise<T> {
  const answer = await result;
  if (!answer.ok) throw new DeskError(answer.error.code, answer.error.message);
  return answer.value;
}

/** Adapts a ProfileStore to the port; `keychainWaits` says when its keychain keeps it waiting. */
export function profileRegistryOver(store: ProfileStore, keychainWaits?: KeychainWaits): ProfileRegistry {
  return {
    list: () => valueOf(store.list()),
    save: (input) => valueOf(store.save(input)),
    delete: (name) => valueOf(store.delete(name)),
    activeName: () => valueOf(store.activeName()),
    setActive: async (name) => {
      await valueOf(store.setActive(name));
    },
    connectionFor: (name) => valueOf(store.connectionFor(name)),
    ...(keychainWaits ? { keychainWaits } : {}),
  };
}

/**
 * The app's profiles: `<dataDir>/profiles.json` with secrets in `credentials` (by default the OS
 * keychain, through keytar), whose waits are watched on `clock` (the system's unless a test
 * passes its virtual one).
 */
export function openProfileRegistry(
  dataDir: string,
  credentials: CredentialStore = createKeytarCredentialStore(),
  clock?: Clock,
): ProfileRegistry {
  const watched = watchKeychain(credentials, clock ? { clock } : {});
  return profileRegistryOver(
    createProfileStore({ dataDir, credentials: watched.credentials }),
    watched.waits,
  );
}
