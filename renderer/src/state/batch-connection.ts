import type { BatchSummary, ProfileView } from '../../../shared/ipc/views';

/** A batch's connection as the page names it: the person's name for it, when one of theirs is it. */
export interface NamedConnection {
  /** The connection's name among the person's, if one of theirs has its address and client id. */
  readonly name: string | undefined;
  /** The service's host, as a person reads it ("sign.example.com"). */
  readonly host: string;
  readonly clientId: string;
}

/** The service's host of `baseUrl`, or the address itself when it does not parse. */
export function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return baseUrl;
  }
}

/**
 * The connection `batch` was sent with, named from the person's connections (the one with its
 * address and client id: a batch is only ever read with that one), or undefined when it was
 * never sent. It is the batch's own, whatever connection is active.
 */
export function batchConnection(
  batch: Pick<BatchSummary, 'connection'>,
  profiles: readonly ProfileView[],
): NamedConnection | undefined {
  const connection = batch.connection;
  if (!connection) return undefined;
  const profile = profiles.find(
    (candidate) => candidate.baseUrl === connection.baseUrl && candidate.clientId === connection.clientId,
  );
  return { name: profile?.name, host: hostOf(connection.baseUrl), clientId: connection.clientId };
}
