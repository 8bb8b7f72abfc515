/**
 * A creation answered without an id in its body but with a same-origin `Location`: the request
 * it names is read once, and taken as the answer's id when the read finds it with this
 * document's reference (or a service that does not show references finds it at all).
 * Otherwise the answer stays without an id, and the key is replayed to learn it.
 */
import type { Logger } from '../base/log';
import type { ServiceClient } from '../client/service-client';
import { isReadPreparedOrLater } from '../domain/check-resolution';
import type { CreationAnswer } from '../domain/service-answers';
import type { Answer } from '../domain/step-machine';
import type { BatchStore } from '../store/batch-store';
import { everyContract } from './batch-reads';

export async function confirmLocation(
  answer: Answer<CreationAnswer>,
  reference: string,
  signal: AbortSignal,
  parts: { readonly store: BatchStore; readonly client: ServiceClient; readonly logger: Logger },
): Promise<Answer<CreationAnswer>> {
  if (answer.kind !== 'applied' || answer.value.id !== undefined || answer.value.locationId === undefined)
    return answer;
  // A request another document of the data folder follows is not this one's, whatever the
  // answer names: it is treated as an answer without an id (the key is replayed to learn it).
  const locationId = answer.value.locationId;
  let taken = false;
  for (const { contract } of everyContract(parts.store)) taken ||= contract.requestId === locationId;
  if (taken) {
    parts.logger.log('warn', 'send.location_taken', {});
    return { kind: 'applied', value: { ...answer.value, locationId: undefined } };
  }
  const read = await parts.client
    .getSigningRequest(answer.value.locationId, { signal, maxAttempts: 2 })
    .catch(() => undefined);
  if (!read?.ok) return answer;
  const remote = read.value.external_reference;
  if (remote !== undefined && remote !== reference) {
    parts.logger.log('warn', 'send.location_other_reference', {});
    return answer;
  }
  // A request this attempt just created cannot be prepared yet: one that is was made before,
  // under this key, and answered as a replay would be (an answer without a body cannot say it).
  const replayed = answer.value.replayed ?? (isReadPreparedOrLater(read.value) ? true : undefined);
  return { kind: 'applied', value: { ...answer.value, id: answer.value.locationId, replayed } };
}
