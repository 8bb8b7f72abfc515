/**
 * One document's run: its steps, taken one after another until it is done for this run (prepared,
 * failed, waiting for the user's check), must wait, or the run stops. Each step's call is
 * performed within the call slots, and the step machine's events are stored durably before
 * anything depends on them; the engine itself decides nothing (step-machine.ts).
 */
import type { BatchEvent } from '../domain/batch-events';
import type { DocumentState } from '../domain/batch-state';
import type { ServiceFailure } from '../domain/service-failure';
import { decideCreation, decideParticipant, decidePrepare } from '../domain/step-decisions';
import {
  nextStep,
  NO_RUN_FACTS,
  type Decision,
  type RunFacts,
  type Step,
  type StepContext,
} from '../domain/step-machine';
import { documentOf } from './batch-reads';
import { confirmLocation } from './creation-location';
import { stepContextOf, type SendParts } from './send-options';
import type { SendRun } from './send-run';
import { waitingEvent } from './service-waits';
import { stepCall } from './step-call';
import { uploadStep } from './upload-step';

export class DocumentSteps {
  readonly #parts: SendParts;

  constructor(parts: SendParts) {
    this.#parts = parts;
  }

  /** Takes one document's steps until it is done for this run, must wait, or the run stops. */
  async process(run: SendRun, documentId: string): Promise<void> {
    const { store } = this.#parts.options;
    const { events } = this.#parts;
    const signal = run.stopping;
    while (!signal.aborted && !run.fatal) {
      const document = documentOf(store, run.batchId, documentId);
      if (!document) return;
      const context = stepContextOf(this.#parts, run.batchId);
      const facts = run.facts.get(documentId) ?? NO_RUN_FACTS;
      const step = nextStep(document, facts, context);
      if (step.kind === 'finished' || step.kind === 'wait') return;
      if (step.kind === 'record') {
        // Decided in this very turn: a key it makes claims its reference before anyone else asks.
        await this.#recordClaimed(run.batchId, step.events);
        events.item(run.batchId, documentId);
        continue;
      }
      const decision = await this.#perform(run, document, step, facts, context);
      if (decision.facts) run.facts.set(documentId, decision.facts);
      if (decision.events.length > 0) {
        try {
          await store.record(run.batchId, decision.events);
        } catch (error) {
          if (signal.aborted) return; // Interrupted anyway: the next run settles what is unknown.
          throw error;
        } finally {
          run.releaseClaims(documentId);
        }
        events.outcomes(run.batchId, documentId, decision.events);
      }
      run.releaseClaims(documentId);
      events.item(run.batchId, documentId);
      events.batchProgress(run.batchId);
      switch (decision.next) {
        case 'continue':
          if (run.schedule.endWaits())
            events.emit({ type: 'engine-state', batchId: run.batchId, state: 'running' });
          continue;
        case 'stop':
          return;
        case 'wait':
          if (decision.failure) this.#wait(run, decision.failure);
          return;
        case 'fatal':
          run.fatal = decision.failure;
          run.controller.abort(new Error('stopped'));
          return;
      }
    }
  }

  /** Performs the call of one step and asks the step machine what its answer means. */
  async #perform(
    run: SendRun,
    document: DocumentState,
    step: Exclude<Step, { kind: 'finished' | 'wait' | 'record' }>,
    facts: RunFacts,
    context: StepContext,
  ): Promise<Decision> {
    const { client, store } = this.#parts.options;
    const { signal } = run.controller;
    const { draft } = document;
    switch (step.kind) {
      case 'upload':
        return uploadStep(run, document, step, context, this.#parts);
      case 'create': {
        const answer = await stepCall(run, async (attempts) => {
          await store.record(run.batchId, step.marker);
          return client.createSigningRequest(step.body, step.key, { signal, ...attempts });
        });
        const create = documentOf(store, run.batchId, draft.id)?.send.create;
        if (!create) throw new Error('a creation step without a key');
        const named = await confirmLocation(answer, draft.externalReference, signal, {
          store,
          client,
          logger: this.#parts.logger,
        });
        return decideCreation(document, create, named, facts, stepContextOf(this.#parts, run.batchId));
      }
      case 'add-participant': {
        const answer = await stepCall(run, async (attempts) => {
          await store.record(run.batchId, step.marker);
          return client.addParticipant(step.requestId, step.participant, { signal, ...attempts });
        });
        return decideParticipant(
          documentOf(store, run.batchId, draft.id) ?? document,
          step.index,
          answer,
          stepContextOf(this.#parts, run.batchId),
        );
      }
      case 'prepare': {
        const answer = await stepCall(run, (attempts) =>
          client.prepareSigningRequest(step.requestId, { signal, ...attempts }),
        );
        return decidePrepare(document, answer, stepContextOf(this.#parts, run.batchId));
      }
    }
  }

  /** Records events that may make keys: their references stay claimed until the record settles. */
  async #recordClaimed(batchId: string, events: readonly BatchEvent[]): Promise<void> {
    const release = this.#parts.guard.claimKeys(batchId, events);
    try {
      await this.#parts.options.store.record(batchId, events);
    } finally {
      release();
    }
  }

  /** The service is away or asked to wait: the whole run waits, and says until when. */
  #wait(run: SendRun, failure: ServiceFailure): void {
    const { logger, clock, events } = this.#parts;
    const delay = run.schedule.waitAfter(failure);
    logger.log('warn', 'send.waiting', {
      batchId: run.batchId,
      code: failure.code,
      delayMs: Math.round(delay),
    });
    // For people: by the wall clock.
    events.emit(
      waitingEvent(run.batchId, failure, clock.now() + (run.schedule.resumeAt - clock.monotonic())),
    );
  }
}
