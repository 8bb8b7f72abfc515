import type { ProfileDependents, ProfileView } from '../../shared/ipc/views';
import type { BatchState } from '../domain/batch-state';
import { connectionKey } from '../domain/batch-connection';
import { classOf, needsTracking } from '../domain/document-class';

/**
 * What depends on the connection `name` (README "Using the app", Connections): the batches bound
 * to its service and client id that still need it, each with its requests still read until
 * final and its documents still on their way or waiting for the person's check. Deleting the
 * connection stops all of that until a connection to the same service and client id is added
 * again. Another saved connection to the same service and client id with a secret keeps them
 * going (`servedBy`): nothing depends on this one then.
 */
export function dependentsOf(
  name: string,
  profiles: readonly ProfileView[],
  batches: readonly BatchState[],
): ProfileDependents {
  const folded = name.toLowerCase();
  const profile = profiles.find((candidate) => candidate.name.toLowerCase() === folded);
  const none: ProfileDependents = { openRequests: 0, unfinished: 0, batches: [], active: false };
  if (!profile) return none;
  const key = connectionKey(profile);
  const active = profile.active;
  const servedBy = profiles.find(
    (other) => other !== profile && other.hasSecret && connectionKey(other) === key,
  )?.name;
  if (servedBy !== undefined) return { ...none, active, servedBy };
  const dependent: ProfileDependents['batches'][number][] = [];
  for (const batch of batches) {
    if (!batch.connection || connectionKey(batch.connection) !== key) continue;
    const openRequests = batch.documents.filter(needsTracking).length;
    const unfinished = batch.documents.filter((document) => {
      const documentClass = classOf(document);
      return documentClass === 'sending' || documentClass === 'needs_check';
    }).length;
    if (openRequests + unfinished > 0)
      dependent.push({ id: batch.id, name: batch.name, openRequests, unfinished });
  }
  dependent.sort((a, b) => b.openRequests + b.unfinished - (a.openRequests + a.unfinished));
  return {
    openRequests: dependent.reduce((sum, batch) => sum + batch.openRequests, 0),
    unfinished: dependent.reduce((sum, batch) => sum + batch.unfinished, 0),
    batches: dependent,
    active,
  };
}

/** How many of the connection's dependents a person must have seen to delete it: every request and document. */
export function dependentCount(dependents: ProfileDependents): number {
  return dependents.openRequests + dependents.unfinished;
}
