import type { SimulatorClock } from './clock';
import { randomSecret } from './random-ids';
import type { Scope } from './types';

interface IssuedToken {
  clientId: string;
  scopes: readonly Scope[];
  expiresAt: number;
}

/** What a valid bearer token grants. */
export interface TokenGrant {
  clientId: string;
  scopes: readonly Scope[];
}

/** Access tokens issued by the token endpoint, expiring by the simulator clock. */
export class TokenStore {
  #tokens = new Map<string, IssuedToken>();
  readonly #clock: SimulatorClock;
  readonly #ttlSeconds: number;

  constructor(clock: SimulatorClock, ttlSeconds: number) {
    this.#clock = clock;
    this.#ttlSeconds = ttlSeconds;
  }

  get ttlSeconds(): number {
    return this.#ttlSeconds;
  }

  /** Issues a new `sim_at_…` token for the client with the given scopes. */
  issue(clientId: string, scopes: readonly Scope[]): string {
    const token = `sim_at_${randomSecret()}`;
    this.#tokens.set(token, {
      clientId,
      scopes: [...scopes],
      expiresAt: this.#clock.now() + this.#ttlSeconds * 1000,
    });
    return token;
  }

  /** The grant of a token, or undefined when it is unknown, revoked or expired. */
  verify(token: string): TokenGrant | undefined {
    const issued = this.#tokens.get(token);
    if (!issued) return undefined;
    if (this.#clock.now() >= issued.expiresAt) {
      this.#tokens.delete(token);
      return undefined;
    }
    return { clientId: issued.clientId, scopes: issued.scopes };
  }

  /** The client a token was issued to, expired or not; undefined when unknown or revoked. */
  clientOf(token: string): string | undefined {
    return this.#tokens.get(token)?.clientId;
  }

  /** Invalidates every token issued so far; new tokens can still be obtained. */
  revokeAll(): void {
    this.#tokens.clear();
  }
}
