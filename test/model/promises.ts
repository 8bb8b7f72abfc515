/**
 * The promises, checked after every step of a generated history (README "Sending exactly once",
 * "Generated histories"):
 * - at most one request per reference at the service, unless the person sent anew on purpose or
 *   the app told them a second one may exist (and that was true), or another desk sent it once
 *   the service forgot the contract's derived key (the README's stated limit);
 * - every "needs your check" is true: what it says could be so ("held at the service" only for a
 *   request its own attempts did not make);
 * - nothing acknowledged is lost: every request the service made under a desk's key is known
 *   to a desk (or was let go on purpose), and every data folder loads;
 * - every request is tracked until it is final;
 * - the service saw no breach of its protocol.
 */
import type { DocumentState } from '../../main/domain/batch-state';
import { canonicalBaseUrl } from '../../main/domain/batch-connection';
import { derivedIdempotencyKey } from '../../main/domain/contract-identity';
import { classOf, needsTracking } from '../../main/domain/document-class';
import { isFinalStage, stageOf } from '../../shared/service/status';
import { keyRetentionMs } from '../../simulator/variants';
import { DEMO_CLIENT } from '../../simulator/simulator';
import type { SignedRequestRecord } from '../../simulator/types';
import type { DeskSlot, World } from './world';

const DEMO_CLIENT_ID = DEMO_CLIENT.clientId;

/** A broken promise, said with what the test saw. */
export class BrokenPromise extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BrokenPromise';
  }
}

function broken(message: string): never {
  throw new BrokenPromise(message);
}

const HOUR = 3_600_000;

/** Where a request of the service stands, as the app would read it. */
export function stageOfRequest(request: SignedRequestRecord): ReturnType<typeof stageOf> {
  return stageOf({
    status: request.status,
    documentStatus: request.documentStatus,
    evidenceReady: request.evidenceReady,
    preparedAt: request.preparedAt ?? undefined,
    finalizedAt: request.finalizedAt ?? undefined,
  });
}

/** Checks every promise against the world as it is now. */
export async function checkPromises(world: World): Promise<void> {
  const documents = await world.documents();
  const requests = world.sim.state.requests();
  const calls = world.sim.state.calls();
  const counts = world.sim.state.countByExternalReference();
  const arrivedKeys = new Set(calls.flatMap((call) => (call.idempotencyKey ? [call.idempotencyKey] : [])));
  const requestsUnderKey = (key: string | undefined) =>
    key === undefined ? [] : requests.filter((request) => request.idempotencyKey === key);
  /** The desks that know a request by its id (the same key is derived on every desk). */
  const desksKnowing = (request: (typeof requests)[number]) =>
    new Set(
      documents
        .filter(
          ({ document }) =>
            document.send.requestId === request.id || document.send.check?.newRequestId === request.id,
        )
        .map(({ slot }) => slot.name),
    );
  /**
   * The generation a key was derived with for `reference` (any PDF a desk holds under it), or
   * undefined for a key no desk derives from the contract (a random one, or a bug).
   */
  const shaOf = new Map<string, Set<string>>();
  for (const { document } of documents) {
    const shas = shaOf.get(document.draft.externalReference) ?? new Set<string>();
    shas.add(document.draft.pdf.sha256);
    shaOf.set(document.draft.externalReference, shas);
  }
  const generationOf = (reference: string, key: string): number | undefined => {
    for (const sha256 of shaOf.get(reference) ?? [])
      for (let generation = 0; generation < 12; generation += 1)
        if (
          derivedIdempotencyKey(
            {
              baseUrl: canonicalBaseUrl(world.sim.baseUrl),
              clientId: DEMO_CLIENT_ID,
              reference,
              sha256,
            },
            generation,
          ) === key
        )
          return generation;
    return undefined;
  };
  /**
   * Requests of `reference` made by a data folder that knew none of the earlier ones, when the
   * service no longer kept the key of any earlier one made under the same key: a second desk
   * the service could not warn (the README's stated limit). Another key only explains it when
   * both are the contract's own keys of different generations (sent anew on purpose, or
   * uploaded again after a refusal, on the first desk): a key not derived from the contract
   * would let every desk send it again.
   */
  const forgottenAcrossDesks = (reference: string, retentionMs: number): number => {
    const ofReference = requests
      .filter((request) => request.externalReference === reference)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    let explained = 0;
    ofReference.forEach((request, index) => {
      if (index === 0) return;
      const mine = desksKnowing(request);
      const earlier = ofReference.slice(0, index);
      // Only a request under the same key could have been recognised (a key sent anew on
      // purpose is another one), and only while the service kept it.
      const generation = generationOf(reference, request.idempotencyKey);
      const forgotten =
        generation !== undefined &&
        earlier.every((before) => {
          if (before.idempotencyKey === request.idempotencyKey)
            return Date.parse(request.createdAt) - Date.parse(before.createdAt) >= retentionMs;
          const earlierGeneration = generationOf(reference, before.idempotencyKey);
          return earlierGeneration !== undefined && earlierGeneration !== generation;
        });
      // What the desks knew when it appeared, not later: a person may link it afterwards.
      let unknownHere = world.ledger.bornUnwarned.get(request.id);
      if (unknownHere === undefined) {
        unknownHere = earlier.every((before) => ![...desksKnowing(before)].some((desk) => mine.has(desk)));
        world.ledger.bornUnwarned.set(request.id, unknownHere);
      }
      if (forgotten && unknownHere) explained += 1;
    });
    return explained;
  };
  const where = (slot: DeskSlot, document: DocumentState) =>
    `${slot.name}: ${document.draft.externalReference} (${document.draft.id.slice(0, 8)})`;

  // An attempt is "may have been applied" only when it could have been: it reached the service,
  // or the process died, or the line dropped calls. A pause or a quit alone never makes one.
  for (const { slot, document } of documents) {
    const create = document.send.create;
    if (!create?.unknown) continue;
    if (arrivedKeys.has(create.idempotencyKey) || slot.disruptions > 0 || world.ledger.lineFaults) continue;
    broken(
      `${where(slot, document)}: an attempt is "outcome unknown", yet none reached the service and nothing was cut`,
    );
  }

  // Every check is true, and a "may now have two requests" counts for the reference.
  for (const { slot, batch, document } of documents) {
    const check = document.send.check;
    if (!check) continue;
    const seen = `${slot.name}/${batch.id}/${document.draft.id}/${check.at}`;
    if (world.ledger.seenChecks.has(seen)) continue;
    world.ledger.seenChecks.add(seen);
    world.ledger.log.push(`  (check ${check.reason} on ${where(slot, document)})`);
    const reference = document.draft.externalReference;
    const key = document.send.create?.idempotencyKey;
    switch (check.reason) {
      case 'new_request_after_unknown': {
        const firstAt = Date.parse(check.firstAttemptAt ?? '');
        const elapsed = Date.parse(check.at) - firstAt;
        const assumedMs = (slot.retentionHours ?? 1) * HOUR;
        if (!(elapsed >= assumedMs) && (counts[reference] ?? 0) < 2)
          broken(
            `${where(slot, document)}: "may now have two requests" ${Math.round(elapsed / 60_000)} min after the first attempt, within the ${assumedMs / HOUR} h the service is assumed to keep keys, and the service holds one`,
          );
        world.ledger.alarms.set(reference, (world.ledger.alarms.get(reference) ?? 0) + 1);
        break;
      }
      case 'held_at_service': {
        // Made from elsewhere: under this key, with a body this document did not send (its own
        // attempts carry its own upload). A replay of its own attempt is no such news.
        const ownUpload = document.send.create?.uploadId;
        const underKey = requestsUnderKey(key);
        if (underKey.length === 0)
          broken(
            `${where(slot, document)}: "held_at_service", yet the service holds no request under its key`,
          );
        if (underKey.every((request) => request.uploadId === ownUpload))
          broken(
            `${where(slot, document)}: "held_at_service", yet the request under its key was made by its own attempt`,
          );
        break;
      }
      case 'created_without_id':
        if (requestsUnderKey(key).length === 0)
          broken(
            `${where(slot, document)}: "${check.reason}", yet the service holds no request under its key`,
          );
        break;
      case 'held_elsewhere': {
        const holder = check.holder;
        const holds =
          documents.some(
            (other) =>
              other.slot === slot &&
              other.document.draft.id === holder?.documentId &&
              other.document.draft.externalReference === reference,
          ) ||
          // A batch deleted since: the data folder remembers what it sent.
          (holder?.deleted === true &&
            (slot.desk?.store.deletedContracts() ?? []).some(
              (contract) => contract.documentId === holder.documentId && contract.reference === reference,
            ));
        if (!holds)
          broken(`${where(slot, document)}: held back for a document that does not carry its reference`);
        break;
      }
      case 'key_refused':
        if (!document.send.create?.unknown)
          broken(`${where(slot, document)}: "key refused" for a key with no attempt of unknown outcome`);
        break;
    }
  }

  // At most one request per reference, but for what the person chose and what the app said, and
  // the one limit the README states: another data folder, once the service forgot the key.
  const retention = keyRetentionMs(world.variant);
  for (const [reference, count] of Object.entries(counts)) {
    const allowed =
      1 +
      (world.ledger.anew.get(reference) ?? 0) +
      (world.ledger.alarms.get(reference) ?? 0) +
      forgottenAcrossDesks(reference, retention);
    if (count > allowed) {
      const held = requests
        .filter((request) => request.externalReference === reference)
        .map(
          (request) =>
            `${request.id} made ${request.createdAt} under ${request.idempotencyKey.slice(0, 12)}…, known to ${
              documents
                .filter(({ document }) => document.send.requestId === request.id)
                .map(({ slot, batch }) => `${slot.name}/${batch.name}`)
                .join(', ') || 'no document by its id'
            }`,
        );
      broken(
        `${reference}: ${count} requests at the service; ${world.ledger.anew.get(reference) ?? 0} sent anew on purpose, ${world.ledger.alarms.get(reference) ?? 0} said: ${held.join('; ')}`,
      );
    }
  }

  // Nothing acknowledged lost: every request made under a desk's key is known to a desk.
  for (const request of requests) {
    if (world.ledger.releasedKeys.has(request.idempotencyKey)) continue;
    const known = documents.some(
      ({ document }) =>
        document.send.requestId === request.id ||
        document.send.create?.idempotencyKey === request.idempotencyKey ||
        document.send.check?.newRequestId === request.id,
    );
    if (!known)
      broken(`${request.externalReference}: the service holds ${request.id}, and no data folder knows it`);
  }

  // Every prepared request is tracked until it is final (or on its way to be, by a send that resumes).
  for (const request of requests) {
    if (!request.preparedAt || world.ledger.releasedKeys.has(request.idempotencyKey)) continue;
    if (isFinalStage(stageOfRequest(request))) continue;
    const followers = documents.filter(({ document }) => document.send.requestId === request.id);
    const tracked = followers.some(
      ({ document }) => needsTracking(document) || classOf(document) === 'sending' || document.gone,
    );
    if (!tracked)
      broken(
        `${request.externalReference}: ${request.id} is ${request.status} at the service and not final, yet no data folder tracks it (${followers.map(({ slot, document }) => `${where(slot, document)} ${classOf(document)}`).join('; ') || 'no document follows it'})`,
      );
  }

  const violations = world.sim.state.violations();
  if (violations.length > 0) broken(`the service saw a breach: ${violations.join(' | ')}`);
}
