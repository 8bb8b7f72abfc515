import { createHash } from 'node:crypto';
import { englishWords, type Translator } from '../../shared/i18n/translator';
import { FIELD_OF, participantProblem } from '../../shared/i18n/participant-problems';
import { participantSchema } from '../../shared/service/wire';
import type { BatchDefaults, DocumentDraft } from '../../shared/domain/batch';
import type { BatchState, DocumentState } from './batch-state';
import { effectiveRecipients } from './create-body';

/**
 * What stops a document from being sent, in plain words (`t`'s language, English unless given);
 * empty when it is ready. Mirrors the service's rules so a batch never fails halfway for a
 * reason that was knowable offline.
 */
export function sendProblems(
  defaults: BatchDefaults,
  draft: DocumentDraft,
  t: Translator['t'] = englishWords(),
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

const documentsByReference = new WeakMap<BatchState, Map<string, DocumentState[]>>();

/** The batch's documents by reference, in batch order (computed once per state of the batch). */
function byReference(batch: BatchState): Map<string, DocumentState[]> {
  let groups = documentsByReference.get(batch);
  if (!groups) {
    groups = new Map();
    for (const document of batch.documents) {
      const group = groups.get(document.draft.externalReference);
      if (group) group.push(document);
      else groups.set(document.draft.externalReference, [document]);
    }
    documentsByReference.set(batch, groups);
  }
  return groups;
}

/**
 * What stops `document` from being sent because of the rest of its batch: another document with
 * the same reference (each contract needs its own: the service, linking and the check for
 * contracts sent twice all know a contract by it), or the very same contract added twice (the
 * copy after the first one). Empty when nothing does.
 */
export function batchProblems(
  batch: BatchState,
  document: DocumentState,
  t: Translator['t'] = englishWords(),
): string[] {
  const reference = document.draft.externalReference;
  const others = (byReference(batch).get(reference) ?? []).filter((other) => other !== document);
  if (others.length === 0) return [];
  const index = batch.documents.indexOf(document);
  const sameEarlier = others.find(
    (other) => other.draft.pdf.sha256 === document.draft.pdf.sha256 && batch.documents.indexOf(other) < index,
  );
  if (sameEarlier) return [t('batches.problemSameContract', { file: sameEarlier.draft.pdf.originalName })];
  // The same contract later in the batch is that copy's problem; any other document with the
  // reference is both documents' problem.
  const other = others.find((candidate) => candidate.draft.pdf.sha256 !== document.draft.pdf.sha256);
  return other ? [t('batches.problemSameReference', { file: other.draft.pdf.originalName, reference })] : [];
}

/**
 * The documents "Send batch" sends: those never queued and ready (no problems of their own or
 * with the rest of the batch, and not `heldBack`), or only those of `wanted`. The engine queues
 * exactly these, and the review before sending counts exactly these (it also holds back what
 * another batch already sent: `heldBack`).
 */
export function documentsToSend(
  batch: BatchState,
  wanted?: ReadonlySet<string>,
  heldBack?: (document: DocumentState) => boolean,
): DocumentState[] {
  return batch.documents
    .filter((document) => !document.send.queued && (!wanted || wanted.has(document.draft.id)))
    .filter(
      (document) =>
        sendProblems(batch.defaults, document.draft).length === 0 &&
        batchProblems(batch, document).length === 0 &&
        heldBack?.(document) !== true,
    );
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
