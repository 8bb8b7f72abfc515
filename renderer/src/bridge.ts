/**
 * The renderer's only door to the app: `window.desk`, exposed by the Electron preload or by
 * the browser host's bridge, with the same named API. Nothing else in the renderer touches it.
 */
import type { HostBridge } from '../../shared/ipc/bridge';
import type { IpcResult } from '../../shared/ipc/contract';
import type { ErrorCode } from '../../shared/ipc/error-codes';

declare global {
  interface Window {
    readonly desk?: HostBridge;
  }
}

/** The bridge, or a clear failure when the page runs outside the app. */
export function desk(): HostBridge {
  if (!window.desk)
    throw new Error('The desk bridge is missing: open the app through Electron or the browser host.');
  return window.desk;
}

/** An error a user can read, from a failed call. */
export class BridgeError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** The value of a call, or throws a BridgeError carrying the app's message. */
export async function unwrap<T>(call: Promise<IpcResult<T>>): Promise<T> {
  const result = await call;
  if (!result.ok) throw new BridgeError(result.error.code, result.error.message);
  return result.value;
}
