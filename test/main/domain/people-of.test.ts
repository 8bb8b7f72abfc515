import { describe, expect, it } from 'vitest';
import type { BatchEvent } from '../../../main/domain/batch-events';
import { applyBatchEvent, emptyBatch } from '../../../main/domain/apply-batch-event';
import type { BatchState } from '../../../main/domain/batch-state';
import { buildCreateBody } from '../../../main/domain/create-body';
import { peopleOf } from '../../../main/domain/people-of';
import type { DocumentDraft } from '../../../shared/domain/batch';
import type { Participant } from '../../../shared/service/wire';

/** Who receives a document, from batches built by folding real journal events. */
const signer = (name: string, signingOrder?: number): Participant => ({
  participant_type: 'signer',
  role: 'Signataire',
  name,
  email: `${name.toLowerCase()}@example.com`,
  ...(signingOrder === undefined ? {} : { signing_order: signingOrder }),
});
const observer = (name: string): Participant => ({ ...signer(name), participant_type: 'observer' });

function draft(recipients: Participant[], extraParticipants: Participant[] = []): DocumentDraft {
  return {
    id: 'doc-1',
    externalReference: 'REF-1',
    pdf: { originalName: 'a.pdf', storedFilename: 'a.pdf', sizeBytes: 10, sha256: 'a'.repeat(64) },
    recipients,
    extraParticipants,
    options: {},
  };
}

function batchAfter(
  defaultRecipients: Participant[],
  document: DocumentDraft,
  ...events: BatchEvent[]
): BatchState {
  const all: BatchEvent[] = [
    { type: 'batch_created', batchId: 'b', name: 'B', defaults: { defaultRecipients } },
    { type: 'document_added', document },
    ...events,
  ];
  return all.reduce(
    (batch, event, index) =>
      applyBatchEvent(batch, { seq: index + 1, at: '2026-11-23T10:00:00.000Z', event }),
    emptyBatch('b'),
  );
}

const names = (batch: BatchState) =>
  peopleOf(batch.defaults, batch.documents[0]!).map((person) => `${person.name}:${person.source}`);

describe('peopleOf: everyone who receives a document', () => {
  it('lists the batch default recipients of a document that has none of its own', () => {
    const batch = batchAfter([signer('Paie'), observer('Archives')], draft([]));
    expect(peopleOf(batch.defaults, batch.documents[0]!)).toEqual([
      { ...signer('Paie'), source: 'batch' },
      { ...observer('Archives'), source: 'batch' },
    ]);
  });

  it('lists a document’s own recipients, then the batch’s, then those added later', () => {
    const batch = batchAfter([observer('Paie')], draft([signer('Zoe')], [observer('Avocat')]));
    expect(names(batch)).toEqual(['Zoe:document', 'Paie:batch', 'Avocat:added']);
  });

  it('lists exactly the recipients of the creation body, once each (the document’s own wins)', () => {
    const document = draft([signer('Zoe'), signer('Paie')]);
    const batch = batchAfter([signer('Paie'), observer('Archives')], document);
    const body = buildCreateBody(batch.defaults, document, 'up_1');
    const people = peopleOf(batch.defaults, batch.documents[0]!);
    expect(people.map(({ source: _source, ...participant }) => participant)).toEqual(body.recipients);
    expect(people.map((person) => person.source)).toEqual(['document', 'document', 'batch']);
  });

  it('sorts by signing order; people without one come after, in the order the service is asked', () => {
    const batch = batchAfter(
      [observer('Archives'), signer('Direction', 2)],
      draft([signer('Zoe'), signer('Marc', 1)], [signer('Avocat', 1), observer('Expert')]),
    );
    expect(names(batch)).toEqual([
      'Marc:document',
      'Avocat:added',
      'Direction:batch',
      'Zoe:document',
      'Archives:batch',
      'Expert:added',
    ]);
  });

  it('keeps the recipients its creation was sent with when the batch defaults change afterwards', () => {
    const document = draft([signer('Zoe')]);
    const before = batchAfter([observer('Paie')], document);
    const batch = batchAfter(
      [observer('Paie')],
      document,
      { type: 'send_requested', documentIds: ['doc-1'] },
      {
        type: 'create_attempted',
        documentId: 'doc-1',
        idempotencyKey: 'key-1',
        uploadId: 'up_1',
        body: buildCreateBody(before.defaults, document, 'up_1'),
        attemptsMarked: true,
      },
      { type: 'request_created', documentId: 'doc-1', requestId: 'sr_1', replayed: false },
      { type: 'defaults_changed', defaults: { defaultRecipients: [observer('Nouveau')] } },
    );
    expect(names(batch)).toEqual(['Zoe:document', 'Paie:batch']);
  });
});
