import { createHash } from 'node:crypto';
import { createTranslator, type Translator } from '../../shared/i18n/translator';
import { FIELD_OF, participantProblem } from '../../shared/i18n/participant-problems';
import { participantSchema } from '../../shared/service/wire';
import type { BatchDefaults, DocumentDraft } from '../../shared/domain/batch';
import type { BatchState, DocumentState } from './batch-state';
import { effectiveRecipients } from './create-body';

let englishT: Translator['t'] | undefined;

/**
 * What stops a document from being sent, in plain words (`t`'s language, English unless given);
 * empty when it is ready. Mirrors the service's rules so a batch never fails halfway for a
 * reason that was knowable offline.
 */
export function sendProblems(
  defaults: BatchDefaults,
  draft: DocumentDraft,
  t: Translator['t'] = (englishT ??= createTranslator('en').t),
): string[] {
  const problems: string[] = [];
  const recipients = effectiveRecipients(defaults, draft);
  if (recipients.length === 0) problems.push(t('batches.problemNoRecipient'));
  if (![...recipients, ...draft.extraParticipants].some((p) => p.participant_type === 'signer')) {
    problems.push(t('batches.problemNoSigner'));
  }
  for (const [index, participant] of [...recipients, ...draft.extraParticipants].entries()) {
    const parsed = participantSchema.safeParse(participant);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push(
        t('batches.problemParticipant', {
          number: index + 1,
          email: participant.email,
          // The editor's sentence for the same issue, in the person's language.
          problem: issue ? participantProblem(FIELD_OF[String(issue.path[0])], issue, t) : '',
        }),
      );
    }
  }
  const emails = [...recipients, ...draft.extraParticipants].map((p) => p.email.toLowerCase());
  const duplicates = [...new Set(emails.filter((email, index) => emails.indexOf(email) !== index))];
  for (const email of duplicates) problems.push(t('common.duplicateEmail', { email }));
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

/**
 * A fingerprint of what sending `documents` of `batch` sends: each one's file, reference,
 * recipients, participants and options, and the batch's defaults (its recipients and options
 * are added to every document). The review gives it; a confirmation carrying another one
 * reviewed something else.
 */
export function sendDigest(batch: BatchState, documents: readonly DocumentState[]): string {
  return createHash('sha256')
    .update(
      JSON.stringify({ defaults: batch.defaults, documents: documents.map((document) => document.draft) }),
    )
    .digest('hex');
}
