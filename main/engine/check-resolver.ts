/**
 * The user's answers to a document the engine will not send further by itself, recorded: link
 * the request the service already holds, send it as a new request after a refused key, or send
 * anew on purpose a document whose reference another one holds. The rules of each answer are the
 * domain's (check-resolution.ts); a run of the batch is woken to carry on at once.
 */
import { err, ok } from '../../shared/base/result';
import {
  isReadPreparedOrLater,
  linkProblemAfterRead,
  linkProblemBeforeRead,
  sendAsNewDecision,
  type ResolutionOutcome,
} from '../domain/check-resolution';
import { documentNow, everyContract } from './batch-reads';
import type { SendParts } from './send-options';

export class CheckResolver {
  readonly #parts: SendParts;
  /** Wakes the batch's run, when one is running, to carry on with the answer. */
  readonly #wake: (batchId: string) => void;

  constructor(parts: SendParts, wake: (batchId: string) => void) {
    this.#parts = parts;
    this.#wake = wake;
  }

  /**
   * "Link the existing request": reads `requestId` at the service, checks that it carries this
   * document's reference (or that the user `confirmed` it when the service does not show it),
   * records it, and continues with participants and prepare when the batch is sent (at once if
   * it is running). Only for a document that needs the user's check; linking the id a document
   * already holds again is a success, so a repeated command carries on.
   */
  async linkRequest(
    batchId: string,
    documentId: string,
    requestId: string,
    options: { readonly confirmed?: boolean } = {},
  ): Promise<ResolutionOutcome> {
    const { store, client } = this.#parts.options;
    const id = requestId.trim();
    // Read back if it is at rest (then it holds no check, and is refused).
    const before = await documentNow(store, batchId, documentId);
    if (before && !before.send.check && before.send.requestId === id) return ok();
    const early = linkProblemBeforeRead(everyContract(store), before, id);
    if (early || !before) return early ?? err({ refusal: 'refused', message: '' });
    const read = await client.getSigningRequest(id);
    const problem = linkProblemAfterRead(
      before,
      id,
      read,
      options.confirmed === true,
      this.#parts.guard.sameReference(batchId, before),
    );
    if (problem || !read.ok) return problem ?? err({ refusal: 'refused', message: '' });
    // The read can take seconds: the document may have been answered meanwhile (first answer wins).
    const now = await documentNow(store, batchId, documentId);
    const late = linkProblemBeforeRead(everyContract(store), now, id);
    if (late) return late;
    await store.record(batchId, [
      {
        type: 'check_resolved_linked',
        documentId,
        requestId: id,
        participantsMayExist: !isReadPreparedOrLater(read.value),
        // This very contract, prepared where it was made: its people were added there first.
        ...(before.send.check?.reason === 'held_at_service' && isReadPreparedOrLater(read.value)
          ? { participantsThere: true }
          : {}),
      },
    ]);
    this.#wake(batchId);
    return ok();
  }

  /**
   * "Send as a new request", on purpose after a warning, only after a refused key: releases
   * the key (and the upload, when the refusal named it) so the next send creates a new request.
   */
  async sendAsNew(batchId: string, documentId: string): Promise<ResolutionOutcome> {
    const { store } = this.#parts.options;
    // Read back if it is at rest (then it holds no check, and is refused).
    const document = await documentNow(store, batchId, documentId);
    const decision = sendAsNewDecision(document, this.#parts.clock.now());
    if (!decision.ok || !document)
      return err({ refusal: 'refused', message: decision.ok ? '' : decision.error });
    await store.record(batchId, [
      {
        type: 'check_resolved_new',
        documentId,
        keepUpload: decision.value.keepUpload,
        generation: this.#parts.guard.nextGeneration(batchId, document),
      },
    ]);
    this.#wake(batchId);
    return ok();
  }

  /**
   * "Send anew on purpose" for a document not sent yet that another document of the data folder
   * holds the reference of (the review says so and holds it back): after the user's warning,
   * it may go in the next send, under a key of its own. True when recorded; false when the
   * document is unknown or already on its way.
   */
  async acceptReferenceReuse(batchId: string, documentId: string): Promise<boolean> {
    const { store } = this.#parts.options;
    // Read back if it is at rest (then its documents are sent, and nothing is recorded).
    const document = await documentNow(store, batchId, documentId);
    if (!document || document.send.queued || document.send.reuseAccepted)
      return document?.send.reuseAccepted === true;
    await store.record(batchId, [
      {
        type: 'reference_reuse_accepted',
        documentId,
        generation: this.#parts.guard.nextGeneration(batchId, document),
      },
    ]);
    return true;
  }
}
