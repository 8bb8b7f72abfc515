/**
 * The one place that talks to the OS keychain. Client secrets live there and nowhere else: when
 * no keychain answers, every operation fails with `keychain_unavailable` and nothing is written
 * anywhere instead (ARCHITECTURE.md "Principles the code keeps"). Swapping keytar for another backend
 * (Electron's safeStorage, @napi-rs/keyring) changes this file only.
 */
import { err, ok, type Err, type Result } from '../../shared/base/result';
import { Secret } from '../base/secret';
import { words } from '../base/words';

/** Every way the keychain can fail, reduced to the one thing a user can act on. */
export interface KeychainUnavailable {
  readonly code: 'keychain_unavailable';
  /** What a user reads; never contains a secret. */
  readonly message: string;
  /** The backend's own words, for support (e.g. "Cannot create an item in a locked collection"). */
  readonly detail: string;
}

export type CredentialResult<T> = Result<T, KeychainUnavailable>;

/**
 * Client secrets by profile name (the keychain "account"). Errors are values: no method throws
 * or rejects, and no result, message or detail ever holds the secret in plain text.
 */
export interface CredentialStore {
  /** Checks that the keychain answers, without changing anything in it. */
  probe(): Promise<CredentialResult<void>>;
  /** Stores or replaces the secret of `profileName`. */
  saveSecret(profileName: string, secret: Secret): Promise<CredentialResult<void>>;
  /** The saved secret, or `undefined` when `profileName` has none. */
  readSecret(profileName: string): Promise<CredentialResult<Secret | undefined>>;
  /** Removes the secret of `profileName`; the value says whether there was one. */
  deleteSecret(profileName: string): Promise<CredentialResult<boolean>>;
  /** Whether `profileName` has a saved secret, without handing the secret out. */
  hasSecret(profileName: string): Promise<CredentialResult<boolean>>;
}

/** The message in English (the command line's language); the app says it in the person's language. */
export const KEYCHAIN_UNAVAILABLE_MESSAGE =
  'No keychain is available: the client secret cannot be stored or read safely. On Linux, install and unlock a Secret Service keyring (GNOME Keyring or KWallet), then try again. The secret is never kept in a file instead.';

/** The default keychain service name under which every profile's secret is filed. */
export const DEFAULT_KEYCHAIN_SERVICE = 'signing-batch-desk';

/**
 * How long one keychain call may take. A desktop keychain may show an unlock prompt, so this is
 * long enough for a person to type a password, yet bounded so a hung daemon cannot hang the app.
 */
const DEFAULT_KEYCHAIN_TIMEOUT_MS = 120_000;

/** The part of keytar's API this store uses, checked at run time when the module loads. */
interface KeychainBackend {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

function unavailable(detail: string): Err<KeychainUnavailable> {
  return err({ code: 'keychain_unavailable', message: words()('connections.keychainUnavailable'), detail });
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim() || 'the keychain failed without saying why';
}

function isKeychainBackend(value: unknown): value is KeychainBackend {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return ['getPassword', 'setPassword', 'deletePassword'].every(
    (name) => typeof candidate[name] === 'function',
  );
}

// A specifier held in a variable keeps bundlers (esbuild, Vite) from inlining the native module:
// Node resolves it at run time, and a build without it reports the keychain as unavailable.
const KEYTAR_SPECIFIER = 'keytar';

async function loadKeytar(): Promise<CredentialResult<KeychainBackend>> {
  let loaded: unknown;
  try {
    loaded = await import(/* @vite-ignore */ KEYTAR_SPECIFIER);
  } catch (error) {
    return unavailable(`the keytar module cannot be loaded: ${describe(error)}`);
  }
  // keytar is CommonJS: its functions sit on the default export.
  const backend = (loaded as { default?: unknown }).default ?? loaded;
  return isKeychainBackend(backend)
    ? ok(backend)
    : unavailable('the keytar module does not have the expected functions');
}

export interface KeytarCredentialStoreOptions {
  /** Bound on each keychain call, in ms. */
  readonly timeoutMs?: number;
}

/**
 * The production store: keytar against the OS keychain (Secret Service on Linux, Keychain on
 * macOS, Credential Manager on Windows), secrets filed under `serviceName` with the profile
 * name as account. keytar is loaded on first use, so an environment without the native module
 * gets `keychain_unavailable` rather than a crash; every keytar exception maps to that value.
 */
export function createKeytarCredentialStore(
  serviceName: string = DEFAULT_KEYCHAIN_SERVICE,
  options: KeytarCredentialStoreOptions = {},
): CredentialStore {
  const timeoutMs = options.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS;
  // Only a successful load is kept: after a failure, the next call tries again.
  let backend: Promise<CredentialResult<KeychainBackend>> | undefined;

  async function withKeychain<T>(
    operation: (keychain: KeychainBackend) => Promise<T>,
  ): Promise<CredentialResult<T>> {
    backend ??= loadKeytar();
    const loaded = await backend;
    if (!loaded.ok) {
      backend = undefined;
      return loaded;
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<CredentialResult<T>>((resolve) => {
      timer = setTimeout(
        () => resolve(unavailable(`the keychain did not answer within ${Math.round(timeoutMs / 1000)} s`)),
        timeoutMs,
      );
    });
    const call = (async (): Promise<CredentialResult<T>> => {
      try {
        return ok(await operation(loaded.value));
      } catch (error) {
        return unavailable(describe(error));
      }
    })();
    try {
      return await Promise.race([call, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    probe: () =>
      // A lookup of an account that is never used: it needs a reachable, unlocked keychain and
      // changes nothing.
      withKeychain(async (keychain) => {
        await keychain.getPassword(serviceName, '.probe');
      }),
    saveSecret: (profileName, secret) =>
      withKeychain((keychain) => keychain.setPassword(serviceName, profileName, secret.reveal())),
    readSecret: (profileName) =>
      withKeychain(async (keychain) => {
        const value = await keychain.getPassword(serviceName, profileName);
        return value === null ? undefined : new Secret(value);
      }),
    deleteSecret: (profileName) =>
      withKeychain((keychain) => keychain.deletePassword(serviceName, profileName)),
    hasSecret: (profileName) =>
      withKeychain(async (keychain) => (await keychain.getPassword(serviceName, profileName)) !== null),
  };
}

export interface MemoryCredentialStoreOptions {
  /** Simulates a machine without a keychain: every call fails as the real store would. */
  readonly unavailable?: boolean;
}

/**
 * FOR UNIT TESTS OF OTHER MODULES ONLY: a credential store held in this process's memory. It
 * keeps nothing after the process ends and is never used by the app; the credential store's own
 * tests run against the real keychain.
 */
export function createMemoryCredentialStore(options: MemoryCredentialStoreOptions = {}): CredentialStore {
  const secrets = new Map<string, Secret>();
  const answer = <T>(value: () => T): Promise<CredentialResult<T>> =>
    Promise.resolve(
      options.unavailable ? unavailable('the in-memory test keychain is set to be unavailable') : ok(value()),
    );
  return {
    probe: () => answer(() => undefined),
    saveSecret: (profileName, secret) =>
      answer(() => {
        secrets.set(profileName, secret);
      }),
    readSecret: (profileName) => answer(() => secrets.get(profileName)),
    deleteSecret: (profileName) => answer(() => secrets.delete(profileName)),
    hasSecret: (profileName) => answer(() => secrets.has(profileName)),
  };
}
