import type { ApiRoute } from './api-route';
import { addParticipantRoute, prepareRoute, widgetSessionRoute } from './ceremony-routes';
import { createSigningRequestRoute, readSigningRequestRoute } from './signing-request-routes';
import { tokenRoute } from './token-route';
import { uploadRoute } from './upload-route';

const API_ROUTES: readonly ApiRoute[] = [
  tokenRoute,
  uploadRoute,
  createSigningRequestRoute,
  readSigningRequestRoute,
  addParticipantRoute,
  prepareRoute,
  widgetSessionRoute,
];

export type RouteMatch =
  | { kind: 'found'; route: ApiRoute; params: Record<string, string> }
  /** The path exists but not with this method; `allowed` feeds the Allow header. */
  | { kind: 'wrongMethod'; allowed: string[] }
  | { kind: 'notFound' };

/** Finds the route for a method and path of the token endpoint or the v1 API. */
export function matchApiRoute(method: string, path: string): RouteMatch {
  const matching = API_ROUTES.map((route) => ({ route, match: route.pattern.exec(path) })).filter(
    (candidate) => candidate.match !== null,
  );
  if (matching.length === 0) return { kind: 'notFound' };
  const exact = matching.find((candidate) => candidate.route.method === method);
  if (!exact) return { kind: 'wrongMethod', allowed: matching.map((candidate) => candidate.route.method) };
  return { kind: 'found', route: exact.route, params: { ...exact.match?.groups } };
}
