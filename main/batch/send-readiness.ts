import { participantSchema } from '../../shared/service/wire';
import type { BatchDefaults, DocumentDraft } from '../../shared/domain/batch';
import type { BatchState, DocumentState } from './batch-state';
import { effectiveRecipients } from './create-body';

/**
 * What stops a document from being sent, in plain words; empty when it is ready. Mirrors the
 * service's rules so a batch never fails halfway for a reason that was knowable offline.
 */
export function sendProblems(defaults: BatchDefaults, draft: DocumentDraft): string[] {
  const problems: string[] = [];
  const recipients = effectiveRecipients(defaults, draft);
  if (recipients.length === 0) problems.push('Add at least one recipient.');
  if (![...recipients, ...draft.extraParticipants].some((p) => p.participant_type === 'signer')) {
    problems.push('Add at least one signer: a request with observers only cannot be signed.');
  }
  for (const [index, participant] of [...recipients, ...draft.extraParticipants].entries()) {
    const parsed = participantSchema.safeParse(participant);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push(
        `Participant ${index + 1} (${participant.email}): ${issue?.path.join('.')} ${issue?.message}.`,
      );
    }
  }
  const emails = [...recipients, ...draft.extraParticipants].map((p) => p.email.toLowerCase());
  const duplicates = [...new Set(emails.filter((email, index) => emails.indexOf(email) !== index))];
  for (const email of duplicates)
    problems.push(`${email} appears twice; each participant needs their own e-mail address.`);
  return problems;
}

/**
 * The documents "Send batch" sends: those never queued and ready (no problems), or only those of
 * `wanted`. The engine queues exactly these, and the review before sending counts exactly these.
 */
export function documentsToSend(batch: BatchState, wanted?: ReadonlySet<string>): DocumentState[] {
  return batch.documents
    .filter((document) => !document.send.queued && (!wanted || wanted.has(document.draft.id)))
    .filter((document) => sendProblems(batch.defaults, document.draft).length === 0);
}
