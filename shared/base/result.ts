/**
 * The one shape of an outcome that can fail, in main, in the renderer and across the bridge:
 * `{ ok: true, value }` or `{ ok: false, error }`. Expected failures are values of this shape;
 * only bugs (and a caller's abort) are thrown. It is plain data, so what crosses IPC is the
 * result itself, as JSON.
 */
export type Ok<T> = { readonly ok: true; readonly value: T };
export type Err<E> = { readonly ok: false; readonly error: E };
export type Result<T, E> = Ok<T> | Err<E>;

/** A success carrying `value`; `ok()` for an outcome that has nothing more to say. */
export function ok(): Ok<void>;
export function ok<T>(value: T): Ok<T>;
export function ok<T>(value?: T): Ok<T | undefined> {
  return { ok: true, value };
}

/** A failure carrying why. */
export function err<E>(error: E): Err<E> {
  return { ok: false, error };
}
