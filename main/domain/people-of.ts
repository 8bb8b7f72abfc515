import type { BatchDefaults } from '../../shared/domain/batch';
import type { Person } from '../../shared/domain/people';
import type { Participant } from '../../shared/service/wire';
import type { DocumentState } from './batch-state';
import { effectiveRecipients } from './create-body';

/**
 * Everyone who receives `document`: exactly who its service is (or will be) asked to send it
 * to, for the status table and the report alike.
 *
 * The creation's recipients are those of its frozen creation body once a creation key exists
 * (the batch's defaults may have changed since; the service got the body, not the defaults),
 * else the ones the next creation will send (`effectiveRecipients`, the rule the body is built
 * with). The extra participants follow, added after creation.
 *
 * Sorted by signing order; people without a signing order come after everyone who has one,
 * because no order puts them in the sequence: among themselves, and among equal orders, they
 * keep the order the service is asked in (the document's own recipients, the batch's, then
 * those added later).
 */
export function peopleOf(defaults: BatchDefaults, document: DocumentState): Person[] {
  const { draft, send } = document;
  const created = send.create?.body.recipients ?? effectiveRecipients(defaults, draft);
  const own = new Set(draft.recipients.map((recipient) => recipient.email.toLowerCase()));
  const people: Person[] = [
    ...created.map((recipient) =>
      withSource(recipient, own.has(recipient.email.toLowerCase()) ? 'document' : 'batch'),
    ),
    ...draft.extraParticipants.map((participant) => withSource(participant, 'added')),
  ];
  // Array.prototype.sort is stable: equal keys keep the order above.
  return people.sort(bySigningOrder);
}

function withSource(participant: Participant, source: Person['source']): Person {
  return { ...participant, source };
}

function bySigningOrder(a: Person, b: Person): number {
  if (a.signing_order === b.signing_order) return 0;
  if (a.signing_order === undefined) return 1;
  if (b.signing_order === undefined) return -1;
  return a.signing_order - b.signing_order;
}
