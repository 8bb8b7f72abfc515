/**
 * The keychain entries of one data folder's profiles. Each is filed under the folder's own id
 * and the profile's name (`folder:<id>/<name>`, folder-identity.ts says how the id is kept), so
 * two data folders of one account never share an entry: saving or deleting "Production" in one
 * leaves the other's as it is.
 *
 * An earlier version filed every folder's secret under the bare profile name, one entry for all
 * folders. Such an entry is used, and copied to the folder's own name, only by a profile whose
 * address it was sealed for (sealed-secret.ts); an entry sealed for another address is another
 * folder's (or a changed file's) and is never used, copied, changed or deleted from here. The
 * entry is left in place when copied: every folder that had this profile at this address used
 * it, and each takes its own copy the first time it looks. It goes when a connection of that
 * name and address is deleted, as with the earlier version.
 */
import { ok, type Result } from '../../shared/base/result';
import type { Secret } from '../base/secret';
import type { CredentialStore, KeychainUnavailable } from './credential-store';
import {
  FOLDER_ACCOUNT_PREFIX,
  openFolderIdentity,
  type FolderIdentity,
  type FolderResult,
} from './folder-identity';
import { sealedAddress, unsealSecret, type SecretAddress } from './sealed-secret';

/** A keychain value found for a profile; `own`: under this folder's name, not an earlier version's. */
export interface FoundSecret {
  readonly stored: Secret;
  readonly own: boolean;
}

export interface FolderSecrets {
  /**
   * The value kept for profile `name`: this folder's own entry, else an earlier version's entry
   * sealed for `address` (copied to this folder's name on the way) or saved without any address
   * (handed back so the person is told to enter it again; it is never sent). Without `address`
   * (no such profile here) only this folder's own entry.
   */
  read(name: string, address?: SecretAddress): Promise<FolderResult<FoundSecret | undefined>>;
  /** Stores or replaces this folder's entry for `name`. */
  save(name: string, stored: Secret): Promise<FolderResult<void>>;
  /**
   * Removes this folder's entry for `name`, and an earlier version's entry when it was sealed for
   * `address`; the value says whether there was one.
   */
  delete(name: string, address?: SecretAddress): Promise<FolderResult<boolean>>;
}

export interface FolderSecretsOptions {
  readonly dataDir: string;
  readonly credentials: CredentialStore;
  /** The folder's profiles as its settings say now: what a new id of the folder carries over. */
  readonly profiles: () => Promise<readonly (SecretAddress & { readonly name: string })[]>;
}

/** The keychain account of profile `name` of the data folder whose id is `folderId`. */
export function profileAccount(folderId: string, name: string): string {
  return `${FOLDER_ACCOUNT_PREFIX}${folderId}/${name}`;
}

/**
 * Whether `name` may be looked up as an earlier version's entry. A name spelled like one of this
 * version's accounts would reach another folder's entry (keychains on Windows ignore case).
 */
function mayBeEarlierEntry(name: string): boolean {
  return !name.toLowerCase().startsWith(FOLDER_ACCOUNT_PREFIX);
}

export function openFolderSecrets(options: FolderSecretsOptions): FolderSecrets {
  const { credentials } = options;
  // Changes of this process run one at a time, so a copy of an earlier entry never writes over
  // a secret saved meanwhile.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };

  async function carryOver(from: string, to: string): Promise<Result<void, KeychainUnavailable>> {
    for (const profile of await options.profiles()) {
      const stored = await credentials.readSecret(profileAccount(from, profile.name));
      if (!stored.ok) return stored;
      if (!stored.value || !unsealSecret(stored.value, profile).ok) continue;
      const copied = await credentials.saveSecret(profileAccount(to, profile.name), stored.value);
      if (!copied.ok) return copied;
    }
    return ok();
  }

  async function forget(id: string): Promise<void> {
    for (const profile of await options.profiles()) {
      await credentials.deleteSecret(profileAccount(id, profile.name));
    }
  }

  const identity: FolderIdentity = openFolderIdentity({ ...options, carryOver, forget });

  /** An earlier version's entry for `name`, when one may be looked up. */
  async function earlierEntry(name: string): Promise<FolderResult<Secret | undefined>> {
    return mayBeEarlierEntry(name) ? credentials.readSecret(name) : ok(undefined);
  }

  /**
   * Copies an earlier version's entry sealed for `address` to this folder's name. The entry stays:
   * another folder with this profile at this address may not have taken its copy yet.
   */
  function adopt(name: string, address: SecretAddress): Promise<FolderResult<FoundSecret | undefined>> {
    return serial(async () => {
      const id = await identity.owned();
      if (!id.ok) return id;
      const account = profileAccount(id.value, name);
      const own = await credentials.readSecret(account);
      if (!own.ok) return own;
      if (own.value) return ok({ stored: own.value, own: true });
      const earlier = await earlierEntry(name);
      if (!earlier.ok) return earlier;
      if (!earlier.value || !unsealSecret(earlier.value, address).ok) return ok(undefined);
      const copied = await credentials.saveSecret(account, earlier.value);
      return copied.ok ? ok({ stored: earlier.value, own: true }) : copied;
    });
  }

  /**
   * Deletes the earlier version's entry for `name` only if it is still sealed for `address`:
   * read again just before, so an entry another folder wrote meanwhile stays.
   */
  async function removeEarlier(name: string, address: SecretAddress): Promise<FolderResult<boolean>> {
    const earlier = await earlierEntry(name);
    if (!earlier.ok) return earlier;
    if (!earlier.value || !unsealSecret(earlier.value, address).ok) return ok(false);
    return credentials.deleteSecret(name);
  }

  return {
    async read(name, address) {
      const id = await identity.current();
      if (!id.ok) return id;
      if (id.value !== undefined) {
        const own = await credentials.readSecret(profileAccount(id.value, name));
        if (!own.ok) return own;
        if (own.value) return ok({ stored: own.value, own: true });
      }
      if (!address) return ok(undefined);
      const earlier = await earlierEntry(name);
      if (!earlier.ok) return earlier;
      if (!earlier.value) return ok(undefined);
      if (unsealSecret(earlier.value, address).ok) {
        const adopted = await adopt(name, address);
        // A folder that cannot be written to (read-only, full) still uses the entry; it is copied later.
        return !adopted.ok && adopted.error.code === 'settings_not_saved'
          ? ok({ stored: earlier.value, own: false })
          : adopted;
      }
      // Saved without an address: whose it is cannot be told, so it is only shown, never copied.
      return ok(sealedAddress(earlier.value) ? undefined : { stored: earlier.value, own: false });
    },

    save: (name, stored) =>
      serial(async () => {
        const id = await identity.owned();
        return id.ok ? credentials.saveSecret(profileAccount(id.value, name), stored) : id;
      }),

    delete: (name, address) =>
      serial(async () => {
        const id = await identity.current();
        if (!id.ok) return id;
        let deleted = false;
        if (id.value !== undefined) {
          const own = await credentials.deleteSecret(profileAccount(id.value, name));
          if (!own.ok) return own;
          deleted = own.value;
        }
        if (!address) return ok(deleted);
        const earlier = await removeEarlier(name, address);
        return earlier.ok ? ok(deleted || earlier.value) : earlier;
      }),
  };
}
