const REDACTED = '[redacted]';

/**
 * A value that must never be printed: client secrets, access tokens, widget URLs. Every way
 * of turning it into text (string conversion, JSON, `util.inspect`, template literals) yields
 * "[redacted]"; only `reveal()` returns the value, at the one place that must send it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The real value; call it only where the secret leaves the process on purpose. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return REDACTED;
  }

  [Symbol.toPrimitive](): string {
    return REDACTED;
  }
}
