/**
 * An expected failure of a desk operation, with a code and a message a user can act on. The
 * IPC entry point turns it into `{ ok: false, error }`; anything else thrown is a bug.
 */
export class DeskError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'DeskError';
    this.code = code;
  }
}
