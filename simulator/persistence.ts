import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { IdempotencyEntry, ServiceState, StoredSigningRequest, StoredUpload } from './service-state';

/**
 * The simulator's service data kept in a file, so that the demo connection survives a restart
 * of the app (its batches keep working): uploads, signing requests and idempotency keys.
 * Tokens and widget sessions are not kept (a client simply obtains new ones), nor the call log.
 */
interface PersistedState {
  readonly version: 1;
  readonly uploads: StoredUpload[];
  readonly requests: StoredSigningRequest[];
  readonly idempotency: [string, [string, IdempotencyEntry][]][];
}

/** Fills `state` from the file at `path`, if there is one. A file that cannot be read is left alone and reported. */
export function loadServiceState(state: ServiceState, path: string): void {
  if (!existsSync(path)) return;
  let saved: PersistedState;
  try {
    saved = JSON.parse(readFileSync(path, 'utf8')) as PersistedState;
  } catch (error) {
    console.error(`simulator: the saved demo state at ${path} cannot be read; starting empty`, error);
    return;
  }
  if (saved.version !== 1) return;
  for (const upload of saved.uploads) state.uploads.set(upload.uploadId, upload);
  for (const request of saved.requests) state.requests.set(request.id, request);
  for (const [clientId, keys] of saved.idempotency) state.idempotency.set(clientId, new Map(keys));
}

/** Writes the service data of `state` to `path` (replaced atomically). */
export function saveServiceState(state: ServiceState, path: string): void {
  const saved: PersistedState = {
    version: 1,
    uploads: [...state.uploads.values()],
    requests: [...state.requests.values()],
    idempotency: [...state.idempotency].map(([clientId, keys]) => [clientId, [...keys]]),
  };
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, JSON.stringify(saved), { mode: 0o600 });
  renameSync(temporary, path);
}
