import type { IncomingMessage } from 'node:http';
import type { BodyCrossing } from '../body-crossing';
import { errorResponse, type ApiResponse } from '../http-io';
import type { ConnectionRegistry } from '../connections';
import type { PolitenessWatch } from '../politeness';
import type { ServiceState } from '../service-state';
import type { TokenGrant, TokenStore } from '../token-store';
import type { Uplink } from '../uplink';
import type { OperationName, Scope } from '../types';

/** What every API handler can reach. */
export interface ServiceContext {
  state: ServiceState;
  tokens: TokenStore;
  /** Retry-After windows and read spacing of every client. */
  politeness: PolitenessWatch;
  /** The accepted connections, numbered (politeness tells in-flight calls apart with them). */
  connections: ConnectionRegistry;
  /** The client's uplink: upload bodies cross its lines at their rates (unlimited unless set). */
  uplink: Uplink;
  /** `http://127.0.0.1:<port>`, used to build widget URLs. */
  baseUrl(): string;
}

/** One call, as a handler sees it once routing, Accept and authentication have passed. */
export interface ApiCall {
  request: IncomingMessage;
  method: string;
  path: string;
  /** Named path parameters, e.g. `id`. */
  params: Readonly<Record<string, string>>;
  /** The token's grant; null only on the unauthenticated token endpoint. */
  grant: TokenGrant | null;
  service: ServiceContext;
  /** For uploads: how the body crosses the uplink (its lines, and a fault's stall in it). */
  crossing?: BodyCrossing | undefined;
  /** Lets the token endpoint name the client it authenticated, for the call log. */
  identifyClient(clientId: string): void;
  /** Lets the token endpoint name the `client_id` its form gave (authenticated or not), for politeness. */
  noteFormClient(clientId: string): void;
}

export interface ApiRoute {
  method: 'GET' | 'POST';
  /** Anchored pattern over the path; named groups become `params`. */
  pattern: RegExp;
  operation: OperationName;
  /** Scope the token needs, and the 403 code when it lacks it; null for the token endpoint. */
  auth: { scope: Scope; forbiddenCode: string } | null;
  /** The answer, or null when the client went away and there is nobody to answer. */
  handle(call: ApiCall): Promise<ApiResponse | null>;
}

/** The grant of an authenticated call; only routes with `auth` are handed one. */
export function grantOf(call: ApiCall): TokenGrant {
  if (!call.grant)
    throw new Error(`${call.method} ${call.path} reached an authenticated handler without a grant`);
  return call.grant;
}

/** 404 for a request that does not exist or belongs to another client (spec §5). */
export function signingRequestNotFound(): ApiResponse {
  return errorResponse(404, 'signing_request_not_found', 'no such signing request for this client');
}
