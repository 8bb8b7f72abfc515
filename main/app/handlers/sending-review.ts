import type { DeskHandlers } from '../../../shared/ipc/contract';
import type { SendReview } from '../../../shared/ipc/views';
import { connectionLabel } from '../../../shared/i18n/connection-label';
import { sameConnection } from '../../domain/batch-connection';
import { effectiveRecipients } from '../../domain/create-body';
import type { DocumentState } from '../../domain/batch-state';
import { classOf } from '../../domain/document-class';
import { batchProblems, documentsToSend, sendDigest, sendProblems } from '../../domain/send-readiness';
import { heldBackWords } from '../batch-views';
import { DeskError } from '../desk-error';
import type { DeskContext } from '../desk-context';

/**
 * The review before "Send batch" (README "Using the app", Send batch): what would go, to how many
 * people, with which connection, and what stays behind and why. Computed from the rules the
 * engine follows (`documentsToSend`, `sendProblems`) and the connection sending would use
 * (`connectionForBatch`, which never binds when only looking), so the review cannot promise
 * what the send then does otherwise. Nothing is sent or bound here. `reviewed` is what confirming
 * gives back: `sending.start` sends exactly that, or refuses when the batch changed since.
 */
export function sendingReviewHandlers(ctx: DeskContext): Pick<DeskHandlers, 'sending.review'> {
  return {
    'sending.review': async (batchId) => {
      const heldBack = await ctx.heldBackOf(await ctx.openBatch(batchId));
      const batch = await ctx.openBatch(batchId);
      const { t } = ctx.translator();
      const going = documentsToSend(batch, undefined, (document) => heldBack(document) !== undefined);
      const people = new Set(
        going.flatMap((document) =>
          [...effectiveRecipients(batch.defaults, document.draft), ...document.draft.extraParticipants].map(
            (person) => person.email.toLowerCase(),
          ),
        ),
      );
      // What stays behind, and what the person does about it, in their language.
      const staysBecause = (document: DocumentState): string[] => {
        const documentClass = classOf(document);
        if (documentClass === 'failed') return [t('review.stayFailed')];
        if (documentClass === 'needs_check') return [t('review.stayNeedsCheck')];
        if (document.send.queued) return [];
        const holder = document.send.reuseAccepted ? undefined : heldBack(document);
        return [
          ...sendProblems(batch.defaults, document.draft, t),
          ...batchProblems(batch, document, t),
          ...(holder ? [heldBackWords(holder, document.draft.externalReference, t)] : []),
        ];
      };
      const blocked = batch.documents
        .map((document) => ({
          id: document.draft.id,
          externalReference: document.draft.externalReference,
          problems: staysBecause(document),
        }))
        .filter((document) => document.problems.length > 0);
      const documentIds = going.map((document) => document.draft.id);
      const review: SendReview = { documentIds, people: people.size, blocked };
      try {
        const { baseUrl, clientId } = (await ctx.connectionForBatch(batchId)).connection;
        // Its name among the user's connections: the active one when it is that, else one with its secret.
        const matches = (await ctx.profiles.list()).filter((profile) =>
          sameConnection(profile, { baseUrl, clientId }),
        );
        const named =
          matches.find((profile) => profile.active) ??
          matches.find((profile) => profile.hasSecret) ??
          matches[0];
        return {
          ...review,
          connection: {
            // The demo's in the person's language, as the Connections screen shows it.
            ...(named ? { name: connectionLabel(named, ctx.translator().t) } : {}),
            baseUrl,
            clientId,
            bound: batch.connection !== undefined,
          },
          reviewed: { documentIds, digest: sendDigest(batch, going), connection: { baseUrl, clientId } },
        };
      } catch (error) {
        // A connection that cannot be used (none chosen, deleted, its secret missing): said, never replaced.
        if (!(error instanceof DeskError)) throw error;
        return { ...review, connectionProblem: error.message };
      }
    },
  };
}
