import type { Secret } from '../base/secret';
import type { ConnectionAddress } from '../domain/batch-connection';

/**
 * One service's address and this app's credentials at it: what every call to it is made with.
 * Not a profile: a profile (`ProfileRecord`, `ProfileView`) is what the person saved and sees,
 * never its secret; a Connection is made from one when calls start (`connectionFor`), or from
 * the environment on the command line. Without its secret it is the `ConnectionAddress` a batch
 * is bound to.
 */
export interface Connection extends ConnectionAddress {
  readonly clientSecret: Secret;
  /**
   * How long this service keeps Idempotency-Keys, in hours, as its operator states it; absent:
   * the app assumes DEFAULT_KEY_RETENTION_MS (an hour). Within it, a new request after an
   * attempt of unknown outcome proves that attempt created nothing.
   */
  readonly keyRetentionHours?: number;
}
