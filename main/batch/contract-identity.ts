/**
 * What a contract is, whatever folder its files lie in (PRODUCT.md "Where the spec is silent"):
 * the service it goes to, its reference, its PDF's digest and the people who receive it. A
 * moved, renamed or copied folder, or a second desk, holds the same contract; the creation's
 * Idempotency-Key is derived from it, so the service itself recognises the contract when it
 * comes again from anywhere, as long as it keeps the key.
 */
import { createHash } from 'node:crypto';
import type { BatchDefaults, DocumentDraft } from '../../shared/domain/batch';
import type { Participant } from '../../shared/service/wire';
import { canonicalBaseUrl, type ConnectionAddress } from './batch-connection';
import { effectiveRecipients } from './create-body';

/** The identity of one contract at one service. */
export interface ContractIdentity {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly reference: string;
  /** SHA-256 of the PDF, lower-case hex. */
  readonly sha256: string;
  /** Everyone who receives it (sent with the creation, then added), in one canonical order. */
  readonly people: readonly string[];
}

/** One person as the identity sees them: e-mail in lower case, and what they do. */
function personOf(person: Participant): string {
  return JSON.stringify([
    person.email.trim().toLowerCase(),
    person.participant_type,
    person.role.trim(),
    person.name.trim(),
    person.signing_order ?? null,
    person.is_internal ?? false,
  ]);
}

/**
 * The identity of `draft` sent to `service` within a batch of `defaults`. People are sorted: a
 * manifest whose rows were reordered holds the same contract.
 */
export function contractIdentity(
  service: ConnectionAddress,
  defaults: BatchDefaults,
  draft: DocumentDraft,
): ContractIdentity {
  return {
    baseUrl: canonicalBaseUrl(service.baseUrl),
    clientId: service.clientId,
    reference: draft.externalReference,
    sha256: draft.pdf.sha256,
    people: [...effectiveRecipients(defaults, draft), ...draft.extraParticipants].map(personOf).sort(),
  };
}

/** Prefix of every derived key: says who made it and how, for a service operator reading logs. */
const KEY_PREFIX = 'sbd1-';

/**
 * The Idempotency-Key of a contract's creation, derived from its identity and a generation:
 * the same contract sent from any folder or desk gets the same key for the same generation, so
 * the service answers with a replay or refuses the key instead of creating a second request.
 * The generation grows each time a document's key is given up (the service refused it and
 * provably applied nothing, or the user sent anew on purpose): a key is never sent again with
 * another body. 69 printable ASCII characters, within what services accept (1 to 255).
 */
export function derivedIdempotencyKey(identity: ContractIdentity, generation: number): string {
  const digest = createHash('sha256')
    .update(
      JSON.stringify([
        identity.baseUrl,
        identity.clientId,
        identity.reference,
        identity.sha256,
        identity.people,
        generation,
      ]),
    )
    .digest('hex');
  return `${KEY_PREFIX}${digest}`;
}

/** True when two identities are the same contract at the same service. */
export function sameContract(a: ContractIdentity, b: ContractIdentity): boolean {
  return (
    a.baseUrl === b.baseUrl &&
    a.clientId === b.clientId &&
    a.reference === b.reference &&
    a.sha256 === b.sha256 &&
    a.people.length === b.people.length &&
    a.people.every((person, index) => person === b.people[index])
  );
}
