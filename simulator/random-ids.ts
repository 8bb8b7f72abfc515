import { randomBytes } from 'node:crypto';

/**
 * Identifiers and secrets come from the system's secure generator, never from the seeded
 * fault generator: a seeded token would be guessable, and ids must not collide across runs.
 */

/** An identifier such as `sr_3f9a…`: the prefix, then 24 random hex digits. */
export function randomId(prefix: 'upl_' | 'sr_' | 'par_'): string {
  return prefix + randomBytes(12).toString('hex');
}

/** An unguessable secret of 32 random bytes, base64url (43 characters). */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}
