import { createHash } from 'node:crypto';
import type { Secret } from '../base/secret';

/** A client id and secret at one service: what "these credentials" means. */
export interface CredentialsAtService {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: Secret;
}

/**
 * Which credentials got a token from their service in this process, whichever client asked (the
 * command line's first token and its run, the app's "Test connection" and its sessions): a
 * refused token request means rejected credentials at once only for credentials that never got
 * one (token-manager.ts). Memory only; a digest stands for each, never the secret itself.
 */
export class GrantedCredentials {
  readonly #granted = new Set<string>();

  /** Records that `credentials` got a token. */
  add(credentials: CredentialsAtService): void {
    this.#granted.add(digestOf(credentials));
  }

  /** True when `credentials` got a token in this process. */
  has(credentials: CredentialsAtService): boolean {
    return this.#granted.has(digestOf(credentials));
  }
}

function digestOf(credentials: CredentialsAtService): string {
  // The secret is part of what the credentials are (a secret changed since is other credentials);
  // it is revealed only to be hashed, and the digest never leaves this set.
  return createHash('sha256')
    .update(JSON.stringify([credentials.baseUrl, credentials.clientId, credentials.clientSecret.reveal()]))
    .digest('base64');
}

/** The one record of this process. */
export const PROCESS_GRANTS = new GrantedCredentials();
