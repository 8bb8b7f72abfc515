import { join } from 'node:path';
import { z } from 'zod';
import { MAX_OPERATION_HOLD_MS } from '../domain/service-failure';
import { isOperationName, type OperationName } from '../domain/service-failure';
import { silentLogger, type Logger } from '../base/log';
import { writeFileAtomic } from './durable-fs';
import { errorCode } from './file-system';
import { readOwnFileSync } from './own-file';

/**
 * Retry-After holds kept past a restart (ARCHITECTURE.md "Principles the code keeps"). A 429, or a
 * 503 with Retry-After, holds an operation for every caller of one client; this file carries
 * the hold to the next process on the same data folder (the app restarted, `send` run again),
 * so a strict service sees no call inside the window it gave.
 *
 * `<dataDir>/service-holds.json` maps `"<baseUrl> <clientId>"` to `{ <operation>: <until> }`,
 * `until` in epoch ms by the wall clock. It is advisory: an unreadable file is ignored (and
 * replaced on the next hold), and it holds no secret (no credentials, no token, no userinfo).
 */
export const SERVICE_HOLDS_FILE = 'service-holds.json';

/** A holds file is a few lines; anything larger is not one this app wrote. */
const MAX_FILE_BYTES = 256 * 1024;

/** The connection a hold belongs to. */
export interface HoldsConnection {
  readonly baseUrl: string;
  readonly clientId: string;
}

/** One connection's holds: until when each operation is held, in epoch ms. */
export type ConnectionHolds = Readonly<Partial<Record<OperationName, number>>>;

export interface ServiceHoldsOptions {
  /** The wall clock the holds are measured with (the service client's). */
  readonly now?: () => number;
  readonly logger?: Logger;
}

type HoldsFile = Record<string, Partial<Record<OperationName, number>>>;

const holdsFileSchema = z.record(z.string(), z.record(z.string(), z.unknown()));

/** Writes of one file, in the order they were asked for: each reads what the one before wrote. */
const pendingWrites = new Map<string, Promise<void>>();

/**
 * The key of a connection in the file: the service address without credentials, query or
 * trailing slash, a space, and the client id. Undefined for an address that is not a URL.
 */
export function serviceHoldsKey(connection: HoldsConnection): string | undefined {
  let url: URL;
  try {
    url = new URL(connection.baseUrl);
  } catch {
    return undefined;
  }
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')} ${connection.clientId}`;
}

/**
 * Reads the file's holds still running at `now`, every connection's. A missing file is empty;
 * a file that is not a regular file, too large, or unreadable is logged and read as empty.
 * Holds already over, more than a day ahead (written under a clock set wrong), on an unknown
 * operation or not a number are dropped.
 */
function readHoldsFile(path: string, now: number, logger: Logger): HoldsFile {
  let text: string | undefined;
  try {
    // Non-blocking, so that a FIFO planted at the path cannot hang the opening of a connection.
    text = readOwnFileSync(path, MAX_FILE_BYTES);
  } catch (error) {
    logger.log('warn', 'service_holds.unreadable', { path, reason: errorCode(error) ?? 'error' });
    return {};
  }
  if (text === undefined) return {};
  let parsed: z.infer<typeof holdsFileSchema>;
  try {
    parsed = holdsFileSchema.parse(JSON.parse(text));
  } catch {
    logger.log('warn', 'service_holds.unreadable', { path, reason: 'not a holds file' });
    return {};
  }
  const holds: HoldsFile = {};
  for (const [key, operations] of Object.entries(parsed)) {
    const running: Partial<Record<OperationName, number>> = {};
    for (const [operation, until] of Object.entries(operations)) {
      if (!isOperationName(operation) || typeof until !== 'number') continue;
      if (until > now && until <= now + MAX_OPERATION_HOLD_MS) running[operation] = until;
    }
    if (Object.keys(running).length > 0) holds[key] = running;
  }
  return holds;
}

/**
 * The holds of `connection` still running, read from the data folder at `dataDirPath` (on this
 * computer's disk). Read synchronously: a tiny file, read once when a connection is opened, so
 * the client is held before its first call. Never throws; an unreadable file gives none.
 */
export function loadServiceHolds(
  dataDirPath: string,
  connection: HoldsConnection,
  options: ServiceHoldsOptions = {},
): ConnectionHolds {
  const key = serviceHoldsKey(connection);
  if (key === undefined) return {};
  const now = (options.now ?? Date.now)();
  return readHoldsFile(join(dataDirPath, SERVICE_HOLDS_FILE), now, options.logger ?? silentLogger)[key] ?? {};
}

/**
 * Records that `operation` of `connection` is held until `untilEpochMs`, keeping a longer hold
 * already recorded and every other connection's, and dropping holds that are over. Replaces
 * the file atomically; writes of one file run one after the other. Never rejects: a failure is
 * logged (the hold still applies to this process).
 */
export function saveServiceHold(
  dataDirPath: string,
  connection: HoldsConnection,
  operation: OperationName,
  untilEpochMs: number,
  options: ServiceHoldsOptions = {},
): Promise<void> {
  const path = join(dataDirPath, SERVICE_HOLDS_FILE);
  const logger = options.logger ?? silentLogger;
  const key = serviceHoldsKey(connection);
  if (key === undefined) return Promise.resolve();
  const write = async (): Promise<void> => {
    const now = (options.now ?? Date.now)();
    const holds = readHoldsFile(path, now, logger);
    const mine = { ...holds[key] };
    if (untilEpochMs > now && untilEpochMs > (mine[operation] ?? 0)) mine[operation] = untilEpochMs;
    if (Object.keys(mine).length > 0) holds[key] = mine;
    await writeFileAtomic(path, `${JSON.stringify(holds, null, 2)}\n`);
  };
  const next = (pendingWrites.get(path) ?? Promise.resolve()).then(write).catch((error: unknown) => {
    logger.log('warn', 'service_holds.save_failed', { path, code: errorCode(error) ?? 'error' });
  });
  pendingWrites.set(path, next);
  void next.then(() => {
    if (pendingWrites.get(path) === next) pendingWrites.delete(path);
  });
  return next;
}
