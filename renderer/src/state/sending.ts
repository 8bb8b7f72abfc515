/**
 * The `sending.*` channels, with feedback: the review and its confirmation ("Send batch"), and
 * what goes on from there (resume, pause, retry, the documents that need the person's check).
 */
import { err, ok, type Result } from '../../../shared/base/result';
import type { DeskErrorCode } from '../../../shared/ipc/error-codes';
import type { ReviewedSend, SendReview } from '../../../shared/ipc/views';
import { desk, unwrap } from '../bridge';
import { attempt, checkAnswer, failedWith, mainsWords, type CheckAnswer } from './call-failures';
import type { StoreKit } from './store-shape';
import { referenceOf, withNotice, withStarting } from './transitions';

/** Main's account of what "Send batch" would send, or why it could not give it, for the review dialog. */
export type SendReviewAnswer = Result<SendReview, string>;

/**
 * How main answered a confirmed review: sent, or refused with words for the review dialog;
 * `outdated` when the batch changed since the review (or is being sent), for "Review again".
 */
export type SendStartAnswer = Result<void, { readonly outdated: boolean; readonly message: string }>;

/** The codes main gives a confirmation of a review that no longer holds. */
const REVIEW_OUTDATED: readonly DeskErrorCode[] = ['review_outdated', 'already_sending'];

export interface SendingActions {
  /** What "Send batch" would send, to whom, with which connection; nothing is sent. */
  review(batchId: string): Promise<SendReviewAnswer>;
  /** Sends exactly what the person reviewed (`review`'s `reviewed`), or main refuses: never what changed since. */
  start(batchId: string, reviewed: ReviewedSend): Promise<SendStartAnswer>;
  /** "Resume sending": only the documents already queued go on; a second click while the first is on its way waits. */
  resume(batchId: string): Promise<void>;
  pause(batchId: string): Promise<void>;
  retry(batchId: string, documentId: string): Promise<void>;
  /** A batch waiting for its service tries again at once ("Try now"). */
  tryNow(batchId: string): Promise<void>;
  /** `sending.retry` for each of `documentIds`, in turn. */
  retryFailed(batchId: string, documentIds: readonly string[]): Promise<void>;
  /**
   * Links the request the service holds to a document that needs a check, and says so in a fading
   * notice. A refusal comes back with main's words (for the dialog the user is in, not a notice
   * behind it); `needsConfirmation` when main asks the user to confirm a link it could not check,
   * which `{ confirmed: true }` then gives.
   */
  linkRequest(
    batchId: string,
    documentId: string,
    requestId: string,
    options?: { readonly confirmed?: boolean },
  ): Promise<CheckAnswer>;
  /**
   * Sends a document that needs a check as a new request, on purpose, and says so in a fading
   * notice; a refusal comes back with main's words, for the dialog the user is in.
   */
  sendAsNew(batchId: string, documentId: string): Promise<CheckAnswer>;
}

export function sendingActions(kit: StoreKit): SendingActions {
  const { set, get, t } = kit;

  /**
   * A resolution main accepted: said in a fading notice, in words that name the document when it
   * is known, and its batch read anew.
   */
  async function sayResolved(
    batchId: string,
    documentId: string,
    words: (reference: string | undefined) => string,
  ): Promise<void> {
    const reference = referenceOf(get(), batchId, documentId);
    set((state) => withNotice(state, 'success', words(reference)));
    await get().actions.batches.get(batchId);
  }

  return {
    async review(batchId) {
      try {
        return ok(await unwrap(desk().sending.review(batchId)));
      } catch (error) {
        return err(mainsWords(error, kit));
      }
    },
    async start(batchId, reviewed) {
      try {
        await unwrap(desk().sending.start(batchId, reviewed));
        return ok();
      } catch (error) {
        const outdated = failedWith(error, ...REVIEW_OUTDATED);
        return err({
          outdated,
          message: outdated ? error.message : t('review.sendFailed', { reason: mainsWords(error, kit) }),
        });
      }
    },
    async resume(batchId) {
      if (get().starting[batchId]) return; // a second click while the first is on its way
      set((state) => withStarting(state, batchId, true));
      try {
        await attempt(kit, () => unwrap(desk().sending.resume(batchId)));
      } finally {
        set((state) => withStarting(state, batchId, false));
      }
    },
    async pause(batchId) {
      await attempt(kit, () => unwrap(desk().sending.pause(batchId)));
    },
    async retry(batchId, documentId) {
      await attempt(kit, () => unwrap(desk().sending.retry(batchId, documentId)));
    },
    async tryNow(batchId) {
      await attempt(kit, () => unwrap(desk().sending.tryNow(batchId)));
    },
    async retryFailed(batchId, documentIds) {
      for (const documentId of documentIds) await get().actions.sending.retry(batchId, documentId);
    },
    async linkRequest(batchId, documentId, requestId, options) {
      const answer = await checkAnswer(kit, () => {
        const sending = desk().sending;
        // Three arguments unless confirmed: the browser host's JSON would turn `undefined` into null.
        return unwrap(
          options?.confirmed
            ? sending.linkRequest(batchId, documentId, requestId, { confirmed: true })
            : sending.linkRequest(batchId, documentId, requestId),
        );
      });
      if (!answer.ok) return answer;
      await sayResolved(batchId, documentId, (reference) =>
        reference ? t('check.linkedTo', { requestId, reference }) : t('check.linked', { requestId }),
      );
      return answer;
    },
    async sendAsNew(batchId, documentId) {
      // A draft held back (another batch holds its reference) is not sent now: it joins the next review.
      const heldDraft = get().details[batchId]?.documents.some(
        (document) => document.id === documentId && document.heldBy !== undefined && !document.check,
      );
      const answer = await checkAnswer(kit, () => unwrap(desk().sending.sendAsNew(batchId, documentId)));
      if (!answer.ok) return answer;
      await sayResolved(batchId, documentId, (reference) =>
        heldDraft && reference
          ? t('check.heldAnewAccepted', { reference })
          : reference
            ? t('check.sentAsNew', { reference })
            : t('check.sentAsNewUnnamed'),
      );
      return answer;
    },
  };
}
