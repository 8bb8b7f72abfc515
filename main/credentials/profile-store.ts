/**
 * Connection profiles (README "Using the app", Connections): a name, a base URL and a client id, kept as settings in
 * `<dataDir>/profiles.json`, with the client secret in the OS keychain only. The settings file
 * never holds a secret; results never carry one in a printable form. Messages are in the
 * language of the call in progress (`words()`), English on the command line.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { err, ok, type Err, type Result } from '../../shared/base/result';
import { KEY_RETENTION_HOURS_MAX, KEY_RETENTION_HOURS_MIN } from '../../shared/domain/key-retention';
import type { ProfileInput } from '../../shared/ipc/contract';
import { baseUrlSchema } from '../client/base-url';
import {
  sameSecretAddress,
  sealedAddress,
  sealSecret,
  unsealSecret,
  type SecretAddress,
} from './sealed-secret';
import type { Connection } from '../credentials/connection';
import { Secret } from '../base/secret';
import { writeFileAtomic } from '../store/durable-fs';
import { readOwnFile, OwnFileError } from '../store/own-file';
import { unreadableReason } from '../files/user-files';
import { words } from '../base/words';
import type { CredentialStore } from './credential-store';
import type { SettingsUnreadable } from './settings-failures';
import { openFolderSecrets, type FolderSecrets } from './folder-secrets';
import type { FolderFailure } from './folder-identity';
import { describeAddress, said, secretNotUsableMessage, type NotUsable } from './profile-messages';

/** A saved secret that is not sent, and why; with the address it was saved for, when it says. */
interface UnusableSecret {
  readonly reason: NotUsable;
  readonly savedFor?: SecretAddress | undefined;
}

/**
 * A saved profile as this store reads it back: its settings (`profiles.json`) and whether its
 * secret is in the keychain, never the secret itself. Made from a `ProfileInput` (what the page
 * sends to save, shared/ipc/contract.ts); the desk shows it as a `ProfileView`
 * (shared/ipc/views.ts), and calls are made with its `Connection` (`connectionFor`).
 */
export interface ProfileRecord {
  readonly name: string;
  readonly baseUrl: string;
  readonly clientId: string;
  readonly hasSecret: boolean;
  /** How long the service keeps Idempotency-Keys, when its operator states it (hours); absent: the app's default. */
  readonly keyRetentionHours?: number;
  /**
   * Where the saved secret belongs when that is not this profile's address: the settings file
   * was changed outside the app (or the secret was saved for another client id). Not a secret.
   */
  readonly secretSavedFor?: string;
}

export type ProfileField = 'name' | 'baseUrl' | 'clientId' | 'secret' | 'keyRetentionHours';

/** Bad input, named by field, with a message that says what is accepted. */
export interface InvalidProfile {
  readonly code: 'invalid_profile';
  readonly message: string;
  readonly issues: readonly { readonly field: ProfileField; readonly message: string }[];
}

export interface ProfileNotFound {
  readonly code: 'profile_not_found';
  readonly message: string;
}

export interface SecretMissing {
  readonly code: 'secret_missing';
  readonly message: string;
}

/** Also `keychain_unavailable`, `settings_unreadable` and `settings_not_saved` (folder-identity.ts). */
export type ProfileFailure = InvalidProfile | ProfileNotFound | SecretMissing | FolderFailure;

export type ProfileResult<T> = Result<T, ProfileFailure>;

/** Profiles of one data folder. No method throws; every failure is a `ProfileFailure`. */
export interface ProfileStore {
  /** Every profile, in the order they were created, with whether each has a saved secret. */
  list(): Promise<ProfileResult<ProfileRecord[]>>;
  /**
   * Creates the profile, or replaces the one with the same name (compared without regard to
   * case; the saved spelling is kept). A given secret goes to the keychain first and the
   * settings are written only if that worked, so a failure leaves everything as it was.
   */
  save(input: ProfileInput): Promise<ProfileResult<ProfileRecord>>;
  /** Removes the profile and its keychain entry (the keychain first, so a failure changes nothing). */
  delete(name: string): Promise<ProfileResult<void>>;
  /** The connection of a profile, with its secret read from the keychain. */
  connectionFor(name: string): Promise<ProfileResult<Connection>>;
  /** The name of the profile the app uses, if one is chosen and still exists. */
  activeName(): Promise<ProfileResult<string | undefined>>;
  /** Makes `name` the profile the app uses; the value is its saved spelling. */
  setActive(name: string): Promise<ProfileResult<string>>;
}

export const PROFILES_FILE = 'profiles.json';
export const PROFILE_NAME_MAX = 64;
const CLIENT_ID_MAX = 512;
const SECRET_MAX = 4096;
/** A settings file of many profiles is a few hundred KiB at most; anything larger is not one. */
const PROFILES_FILE_LIMIT = 4 * 1024 * 1024;
/** What stands in the file's place when it is not a file: said as such (a pipe, a folder, a link…). */
const NOT_A_FILE: ReadonlySet<string> = new Set(['FIFO', 'SOCKET', 'DEVICE', 'EISDIR', 'ELOOP']);

const nameSchema = z
  .string()
  .trim()
  .min(1, said('connections.nameRequired'))
  .max(PROFILE_NAME_MAX, said('connections.nameTooLong', { max: String(PROFILE_NAME_MAX) }))
  .refine((name) => !/\p{Cc}/u.test(name), said('connections.nameControl'));

const clientIdSchema = z
  .string()
  .trim()
  .min(1, said('connections.clientIdRequired'))
  .max(CLIENT_ID_MAX, said('connections.clientIdTooLong', { max: String(CLIENT_ID_MAX) }));

const keyRetentionSchema = z
  .number()
  .min(KEY_RETENTION_HOURS_MIN, said('connections.retentionTooShort'))
  .max(
    KEY_RETENTION_HOURS_MAX,
    said('connections.retentionTooLong', { max: String(KEY_RETENTION_HOURS_MAX) }),
  );

const storedProfileSchema = z.object({
  name: nameSchema,
  baseUrl: baseUrlSchema,
  clientId: clientIdSchema,
  keyRetentionHours: keyRetentionSchema.optional(),
});
type StoredProfile = z.infer<typeof storedProfileSchema>;

const foldName = (name: string) => name.trim().toLocaleLowerCase('en-US');

/** True when two names denote the same profile (names are compared without regard to case). */
export function sameProfileName(a: string, b: string): boolean {
  return foldName(a) === foldName(b);
}

const settingsSchema = z
  .object({
    version: z.literal(1),
    activeProfile: z.string().optional(),
    profiles: z.array(storedProfileSchema),
  })
  .refine(
    (settings) =>
      new Set(settings.profiles.map((profile) => foldName(profile.name))).size === settings.profiles.length,
    'two profiles have the same name',
  );
type Settings = z.infer<typeof settingsSchema>;

const EMPTY_SETTINGS: Settings = { version: 1, profiles: [] };

export interface ProfileStoreOptions {
  /** The app's data folder; the profiles live in its `profiles.json`. */
  readonly dataDir: string;
  readonly credentials: CredentialStore;
}

function notFound(name: string): Err<ProfileNotFound> {
  return err({
    code: 'profile_not_found',
    message: words()('connections.profileNotFound', { name: name.trim() }),
  });
}

function parseInput(
  input: ProfileInput,
): ProfileResult<{ profile: StoredProfile; secret: Secret | undefined }> {
  const issues: { field: ProfileField; message: string }[] = [];
  const fields = { name: nameSchema, baseUrl: baseUrlSchema, clientId: clientIdSchema } as const;
  const profile: Partial<StoredProfile> = {};
  for (const field of ['name', 'baseUrl', 'clientId'] as const) {
    const parsed = fields[field].safeParse(input[field]);
    if (parsed.success) profile[field] = parsed.data;
    else issues.push({ field, message: parsed.error.issues[0]?.message ?? `The ${field} is not valid.` });
  }
  // The secret is checked by hand: it must not pass through a parser that could echo it.
  // Wrapped at once: from here on it cannot be printed by mistake.
  const secret = input.secret === undefined ? undefined : new Secret(input.secret);
  const revealed = secret?.reveal();
  if (revealed !== undefined && revealed.trim() === '') {
    issues.push({ field: 'secret', message: words()('connections.secretEmpty') });
  } else if (revealed !== undefined && revealed.length > SECRET_MAX) {
    const max = String(SECRET_MAX);
    issues.push({ field: 'secret', message: words()('connections.secretTooLong', { max }) });
  }
  if (input.keyRetentionHours !== undefined) {
    const retention = keyRetentionSchema.safeParse(input.keyRetentionHours);
    if (retention.success) profile.keyRetentionHours = retention.data;
    else
      issues.push({
        field: 'keyRetentionHours',
        message: retention.error.issues[0]?.message ?? words()('connections.retentionInvalid'),
      });
  }
  const complete = (value: Partial<StoredProfile>): value is StoredProfile =>
    value.name !== undefined && value.baseUrl !== undefined && value.clientId !== undefined;
  if (issues.length > 0 || !complete(profile)) return invalid(issues);
  return ok({ profile, secret });
}

/** The failure for bad input, naming each field with what is accepted. */
function invalid(issues: InvalidProfile['issues']): Err<InvalidProfile> {
  return err({ code: 'invalid_profile', message: issues.map((issue) => issue.message).join(' '), issues });
}

/**
 * Opens the profiles of `dataDir`. Nothing is read until a method is called, and every call
 * reads the file again, so a change made by another process (the app, the command line) is seen.
 */
export function createProfileStore(options: ProfileStoreOptions): ProfileStore {
  const path = join(options.dataDir, PROFILES_FILE);
  // Read-modify-write sequences of this process run one at a time, so none loses another's change.
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };
  // The keychain entries of this folder's profiles, apart from every other folder's.
  const secrets: FolderSecrets = openFolderSecrets({
    dataDir: options.dataDir,
    credentials: options.credentials,
    profiles: async () => {
      const loaded = await load();
      return loaded.ok ? loaded.value.profiles : [];
    },
  });

  async function load(): Promise<ProfileResult<Settings>> {
    let text: string | undefined;
    try {
      // Opened without blocking or following a link: a FIFO in its place must not hang the app.
      text = await readOwnFile(path, PROFILES_FILE_LIMIT);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      return unreadable(
        error instanceof OwnFileError && NOT_A_FILE.has(code)
          ? unreadableReason(code, words())
          : words()('connections.settingsCannotOpen', { code }),
      );
    }
    if (text === undefined) return ok(EMPTY_SETTINGS);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return unreadable(words()('connections.settingsNotJson'));
    }
    const parsed = settingsSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
      return unreadable(`${issue?.message ?? 'unexpected content'}${where}`);
    }
    return ok(parsed.data);
  }

  function unreadable(detail: string): Err<SettingsUnreadable> {
    return err({
      code: 'settings_unreadable',
      message: words()('connections.settingsUnreadable', { path, detail }),
      detail,
    });
  }

  async function write(settings: Settings): Promise<ProfileResult<void>> {
    try {
      await writeFileAtomic(path, `${JSON.stringify(settings, null, 2)}\n`);
      return ok();
    } catch (error) {
      const detail = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      return err({
        code: 'settings_not_saved',
        message: words()('connections.settingsNotSaved', { path, detail }),
        detail,
      });
    }
  }

  const find = (settings: Settings, name: string) =>
    settings.profiles.find((profile) => foldName(profile.name) === foldName(name));

  /** The profile's secret from the keychain, only when it was saved for the profile's address. */
  async function secretOf(profile: StoredProfile): Promise<Result<Secret | UnusableSecret, FolderFailure>> {
    const found = await secrets.read(profile.name, profile);
    if (!found.ok) return found;
    if (!found.value) return ok({ reason: 'none' });
    const unsealed = unsealSecret(found.value.stored, profile);
    if (unsealed.ok) return ok(unsealed.value);
    return ok({ reason: unsealed.error, savedFor: sealedAddress(found.value.stored) });
  }

  /** The saved profile as it is read back: its settings, and whether its secret can be used. */
  async function recordOf(profile: StoredProfile): Promise<ProfileResult<ProfileRecord>> {
    const secret = await secretOf(profile);
    if (!secret.ok) return secret;
    const hasSecret = secret.value instanceof Secret;
    const savedFor = secret.value instanceof Secret ? undefined : secret.value.savedFor;
    return ok({ ...profile, hasSecret, ...(savedFor ? { secretSavedFor: describeAddress(savedFor) } : {}) });
  }

  async function save(input: ProfileInput): Promise<ProfileResult<ProfileRecord>> {
    const parsed = parseInput(input);
    if (!parsed.ok) return parsed;
    const loaded = await load();
    if (!loaded.ok) return loaded;
    const settings = loaded.value;
    const existing = find(settings, parsed.value.profile.name);
    // The keychain account is the saved spelling, so replacing "Sandbox" with "sandbox" keeps one entry.
    const profile: StoredProfile = {
      ...parsed.value.profile,
      name: existing?.name ?? parsed.value.profile.name,
    };
    const { secret } = parsed.value;

    // What the keychain keeps for this name: this folder's own entry (for a new profile, a
    // leftover of a deleted one), or for an existing one an earlier version's entry.
    const found = await secrets.read(profile.name, existing);
    if (!found.ok) return found;
    const previous = found.value?.stored;
    // The saved secret serves this profile only if it was saved for the address it keeps.
    const keepsSecret =
      existing !== undefined && previous !== undefined && unsealSecret(previous, profile).ok;
    const movedSecret =
      existing !== undefined &&
      previous !== undefined &&
      !secret &&
      !keepsSecret &&
      !sameSecretAddress(existing, profile);
    // The settings file says another address than the one the secret was saved for: someone
    // changed it outside the app. A secret typed now would go there: the user must set the
    // address back (the saved secret then serves again) or delete the connection and add it anew.
    const savedFor = existing && previous ? sealedAddress(previous) : undefined;
    const changedOutside =
      savedFor !== undefined && existing !== undefined && !sameSecretAddress(savedFor, existing);
    if (changedOutside && secret && !sameSecretAddress(savedFor, profile)) {
      return invalid([
        {
          field: 'baseUrl',
          message: words()('connections.addressChangedOutside', { address: describeAddress(savedFor) }),
        },
      ]);
    }
    if (movedSecret) {
      // A saved secret only ever goes where it was saved for: a new address or client id needs it typed again.
      return invalid([
        {
          field: 'secret',
          message: words()('connections.enterSecretAgain'),
        },
      ]);
    }
    if (secret) {
      const stored = await secrets.save(profile.name, sealSecret(profile, secret));
      if (!stored.ok) return stored;
    } else if (!existing && previous) {
      // A secret this folder kept for an earlier profile of this name (e.g. its settings were
      // lost) must not be sent to a new profile's address.
      const cleared = await secrets.delete(profile.name);
      if (!cleared.ok) return cleared;
    }

    const profiles = existing
      ? settings.profiles.map((candidate) => (candidate === existing ? profile : candidate))
      : [...settings.profiles, profile];
    const written = await write({ ...settings, profiles });
    if (!written.ok) {
      // Put the keychain back as it was, so the failed save changed nothing.
      if (secret) {
        await (found.value?.own
          ? secrets.save(profile.name, found.value.stored)
          : secrets.delete(profile.name));
      }
      return written;
    }
    const hasSecret = secret !== undefined || keepsSecret;
    return ok({ ...profile, hasSecret });
  }

  async function remove(name: string): Promise<ProfileResult<void>> {
    const loaded = await load();
    if (!loaded.ok) return loaded;
    const settings = loaded.value;
    const existing = find(settings, name);
    if (!existing) return notFound(name);
    // This folder's entry, and an earlier version's only if it was sealed for this profile's address.
    const deleted = await secrets.delete(existing.name, existing);
    if (!deleted.ok) return deleted;
    const wasActive =
      settings.activeProfile !== undefined && foldName(settings.activeProfile) === foldName(existing.name);
    return write({
      ...settings,
      activeProfile: wasActive ? undefined : settings.activeProfile,
      profiles: settings.profiles.filter((profile) => profile !== existing),
    });
  }

  return {
    async list() {
      const loaded = await load();
      if (!loaded.ok) return loaded;
      const records: ProfileRecord[] = [];
      for (const profile of loaded.value.profiles) {
        const record = await recordOf(profile);
        if (!record.ok) return record;
        records.push(record.value);
      }
      return ok(records);
    },

    save: (input) => exclusive(() => save(input)),

    delete: (name) => exclusive(() => remove(name)),

    async connectionFor(name) {
      const loaded = await load();
      if (!loaded.ok) return loaded;
      const profile = find(loaded.value, name);
      if (!profile) return notFound(name);
      const secret = await secretOf(profile);
      if (!secret.ok) return secret;
      if (!(secret.value instanceof Secret)) {
        const { reason, savedFor } = secret.value;
        return err({ code: 'secret_missing', message: secretNotUsableMessage(profile, reason, savedFor) });
      }
      return ok({
        baseUrl: profile.baseUrl,
        clientId: profile.clientId,
        clientSecret: secret.value,
        ...(profile.keyRetentionHours === undefined ? {} : { keyRetentionHours: profile.keyRetentionHours }),
      });
    },

    async activeName() {
      const loaded = await load();
      if (!loaded.ok) return loaded;
      const { activeProfile } = loaded.value;
      // A name left by hand for a profile that is gone means "none chosen".
      return ok(activeProfile === undefined ? undefined : find(loaded.value, activeProfile)?.name);
    },

    setActive: (name) =>
      exclusive(async () => {
        const loaded = await load();
        if (!loaded.ok) return loaded;
        const profile = find(loaded.value, name);
        if (!profile) return notFound(name);
        const written = await write({ ...loaded.value, activeProfile: profile.name });
        return written.ok ? ok(profile.name) : written;
      }),
  };
}
