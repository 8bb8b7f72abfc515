import type { ServiceErrorCode } from '../../shared/service/error-codes';
import type { DeskErrorCode } from '../../shared/ipc/error-codes';

/**
 * An expected failure of a desk operation, with a code and a message a user can act on. The
 * IPC entry point turns it into `{ ok: false, error }`; anything else thrown is a bug.
 */
export class DeskError extends Error {
  /** The desk's own code, or the service's when its failure is what the page is told. */
  readonly code: DeskErrorCode | ServiceErrorCode;

  constructor(code: DeskErrorCode | ServiceErrorCode, message: string) {
    super(message);
    this.name = 'DeskError';
    this.code = code;
  }
}
