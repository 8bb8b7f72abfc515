/**
 * A client secret as the keychain keeps it: together with the service address and client id it
 * was saved for. The keychain entry is found by profile name, and the profile's address is read
 * from `profiles.json`, a file in the data folder that someone else may change; sealing the
 * address with the secret means a changed file can never send a saved secret anywhere else
 * (ARCHITECTURE.md "Principles the code keeps"). The one place that decides whether a secret may go somewhere.
 */
import { err, ok, type Result } from '../../shared/base/result';
import { Secret } from '../base/secret';

/** Where a secret was saved for: a service address (normalized) and a client id. */
export interface SecretAddress {
  readonly baseUrl: string;
  readonly clientId: string;
}

/** Marks a sealed keychain value; a value without it was saved by an earlier version. */
const SEALED_PREFIX = 'signing-batch-desk/sealed/1 ';

/**
 * Why a saved secret is not for an address: `other_address`, saved for another address or client
 * id; `unaddressed`, saved by an earlier version, for no address in particular.
 */
export type NotSealedFor = 'other_address' | 'unaddressed';

export type Unsealed = Result<Secret, NotSealedFor>;

/** The keychain value for `secret`, saved for `address`. */
export function sealSecret(address: SecretAddress, secret: Secret): Secret {
  const sealed = { baseUrl: address.baseUrl, clientId: address.clientId, secret: secret.reveal() };
  return new Secret(`${SEALED_PREFIX}${JSON.stringify(sealed)}`);
}

/** The address a keychain value was saved for (not a secret), or undefined for an earlier version's value. */
export function sealedAddress(stored: Secret): SecretAddress | undefined {
  const sealed = parseSealed(stored);
  return sealed && typeof sealed.baseUrl === 'string' && typeof sealed.clientId === 'string'
    ? { baseUrl: sealed.baseUrl, clientId: sealed.clientId }
    : undefined;
}

/** True when both name the same service address and client id (both normalized). */
export function sameSecretAddress(a: SecretAddress, b: SecretAddress): boolean {
  return a.baseUrl === b.baseUrl && a.clientId === b.clientId;
}

/** The secret in a keychain value, only when it was saved for `address`. */
export function unsealSecret(stored: Secret, address: SecretAddress): Unsealed {
  const sealed = parseSealed(stored);
  if (!sealed || typeof sealed.secret !== 'string') return err('unaddressed');
  if (sealed.baseUrl !== address.baseUrl || sealed.clientId !== address.clientId) return err('other_address');
  return ok(new Secret(sealed.secret));
}

function parseSealed(stored: Secret): Record<string, unknown> | undefined {
  const value = stored.reveal();
  if (!value.startsWith(SEALED_PREFIX)) return undefined;
  try {
    const parsed: unknown = JSON.parse(value.slice(SEALED_PREFIX.length));
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    // The parser's message may quote the value: it is never passed on.
    return undefined;
  }
}
