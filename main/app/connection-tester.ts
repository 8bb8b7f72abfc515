/** "Test connection" as the desk service wants it, over the credentials module's test. */
import { testConnection } from '../credentials/connection-test';
import type { ConnectionTuning } from './desk-core';
import type { Logger } from '../base/log';
import type { DeskServiceDeps } from './desk-service';

/** Tests a profile's connection and reports it in the IPC contract's shape (a view, flat: ConnectionTest). */
export function connectionTester(
  logger: Logger,
  tuning: ConnectionTuning = {},
): DeskServiceDeps['testConnection'] {
  return async (_profile, connection) => {
    const result = await testConnection(connection, {
      logger,
      ...(tuning.retry ? { retry: tuning.retry } : {}),
      ...(tuning.clock ? { clock: tuning.clock } : {}),
    });
    if (!result.ok) return { ok: false, code: result.error.code, message: result.error.message };
    const { scopes, expiresInSeconds } = result.value;
    return { ok: true, scopes, ...(expiresInSeconds === undefined ? {} : { expiresInSeconds }) };
  };
}
