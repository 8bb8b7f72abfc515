import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { createJsonLogger } from '../../main/base/log';
import { Secret } from '../../main/base/secret';
import { ServiceClient, type ServiceClientOptions } from '../../main/client/service-client';
import { fileUploadSource, type UploadSource } from '../../main/client/upload-source';
import type { ServiceResult } from '../../main/domain/service-failure';

/** Collected log lines of a client, to assert on and to scan for secrets. */
export interface CapturedLog {
  readonly lines: string[];
}

/** A client for tests: fast retries, every log line captured. */
export function makeTestClient(
  baseUrl: string,
  credentials: { clientId: string; clientSecret: string },
  overrides: Partial<ServiceClientOptions> = {},
): { client: ServiceClient; log: CapturedLog } {
  const log: CapturedLog = { lines: [] };
  const client = new ServiceClient({
    baseUrl,
    clientId: credentials.clientId,
    clientSecret: new Secret(credentials.clientSecret),
    retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 8, maxRetryAfterMs: 5_000 },
    logger: createJsonLogger((line) => log.lines.push(line)),
    ...overrides,
  });
  return { client, log };
}

/** Describes a file on disk as an upload source. */
export function uploadSourceOf(path: string, filename = basename(path)): UploadSource {
  return fileUploadSource(path, statSync(path).size, filename);
}

/** The value of a successful result; fails the test with the failure's message otherwise. */
export function expectOk<T>(result: ServiceResult<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result.value;
}

/** The failure of a result; fails the test when it succeeded. */
export function expectFailure<T>(result: ServiceResult<T>) {
  if (result.ok) throw new Error('expected a failure, got success');
  return result.error;
}
