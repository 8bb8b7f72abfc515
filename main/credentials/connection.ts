import type { Secret } from '../base/secret';

/** One service's address and this app's credentials at it: what every call to it is made with. */
export interface Connection {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: Secret;
  /**
   * How long this service keeps Idempotency-Keys, in hours, as its operator states it; absent:
   * the app assumes DEFAULT_KEY_RETENTION_MS (an hour). Within it, a new request after an
   * attempt of unknown outcome proves that attempt created nothing.
   */
  readonly keyRetentionHours?: number;
}
