import type { BatchState } from './batch-state';

/**
 * Where a connection goes: the service's address and the client id, no secret. A batch is bound
 * to one when first sent (`BatchState.connection`) and is only ever sent and tracked with a
 * `Connection` (main/credentials/connection.ts: this, with the secret) of the same key.
 */
export interface ConnectionAddress {
  readonly baseUrl: string;
  readonly clientId: string;
}

/**
 * A service address in its one spelling: scheme and host in lower case, no default port, no
 * trailing slash (`HTTPS://Sign.example.com:443/` is `https://sign.example.com`). Saved
 * connections, `--base-url` and batch bindings all compare in this spelling.
 */
export function canonicalBaseUrl(baseUrl: string): string {
  const text = baseUrl.trim();
  try {
    const url = new URL(text);
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return text.replace(/\/+$/, '');
  }
}

/**
 * One connection's identity, the same for every spelling of its address: `"<baseUrl> <clientId>"`
 * with the address in its one spelling (`canonicalBaseUrl`). A batch is sent, continued and
 * tracked only with the connection of its key (README "Using the app", Connections); this is the one place
 * that compares them.
 */
export function connectionKey(connection: ConnectionAddress): string {
  return `${canonicalBaseUrl(connection.baseUrl)} ${connection.clientId}`;
}

/** True when the two name the same service and client. */
export function sameConnection(a: ConnectionAddress, b: ConnectionAddress): boolean {
  return connectionKey(a) === connectionKey(b);
}

/**
 * True when `batch` belongs to `connection`: it was bound to it when first sent
 * (`BatchStore.bindConnection`). A batch not bound yet belongs to no connection: nothing of it
 * is read at any service.
 */
export function batchBelongsTo(batch: BatchState, connection: ConnectionAddress): boolean {
  return batch.connection !== undefined && sameConnection(batch.connection, connection);
}
