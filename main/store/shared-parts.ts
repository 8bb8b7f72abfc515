import type { Participant } from '../../shared/service/wire';
import type { BatchState, DocumentState, ParticipantProgress } from '../domain/batch-state';

/**
 * A batch read from its files holds each repeated value once per place it appears: a document's
 * digest three times (its PDF, its upload, its preparation), its upload id three times, each
 * recipient twice (the draft and the frozen creation body), and one `{inFlight, unknown, done}`
 * per participant of every document. A year of batches (50,000 documents) took 117 MiB of heap
 * so. Freshly parsed, nothing else holds these objects yet, and states are never changed in
 * place (every event makes new objects), so equal parts are made one and the same object.
 */

/** The same object, writable: only for parts read from disk just now (see above). */
function writable<T>(value: T): { -readonly [K in keyof T]: T[K] } {
  return value;
}

/** True when two participants (flat objects of plain values) say the same thing. */
function sameParticipant(a: Participant, b: Participant): boolean {
  // Most candidates differ by address: told apart before any key is listed.
  if (a.email !== b.email || a.name !== b.name) return false;
  const aKeys = Object.keys(a) as (keyof Participant)[];
  if (aKeys.length !== Object.keys(b).length) return false;
  return aKeys.every((key) => a[key] === b[key]);
}

/** Shares the repeated parts of a freshly loaded batch; answers the same state, lighter. */
export function shareRepeatedParts(state: BatchState): BatchState {
  const progresses = new Map<string, ParticipantProgress>();
  const emptyOptions = {};
  const known: Participant[] = [...state.defaults.defaultRecipients];
  for (const document of state.documents.map((each) => writable<DocumentState>(each))) {
    const draft = writable(document.draft);
    const send = writable(document.send);
    const pdf = writable(draft.pdf);
    const sha256 = pdf.sha256;
    if (pdf.originalName === pdf.storedFilename) pdf.originalName = pdf.storedFilename;
    if (Object.keys(draft.options).length === 0) draft.options = emptyOptions;
    const upload = send.upload && writable(send.upload);
    if (upload) {
      if (upload.sha256 === sha256) upload.sha256 = sha256;
      if (upload.filename === draft.pdf.storedFilename) upload.filename = draft.pdf.storedFilename;
    }
    const prepared = send.prepared && writable(send.prepared);
    if (prepared?.sha256 === sha256) prepared.sha256 = sha256;
    const create = send.create && writable(send.create);
    if (create) {
      if (upload && create.uploadId === upload.uploadId) create.uploadId = upload.uploadId;
      const body = writable(create.body);
      if (body.document.upload_id === create.uploadId) body.document.upload_id = create.uploadId;
      if (body.external_reference === draft.externalReference)
        body.external_reference = draft.externalReference;
      body.recipients = body.recipients.map(
        (recipient) =>
          draft.recipients.find((own) => sameParticipant(own, recipient)) ??
          known.find((other) => sameParticipant(other, recipient)) ??
          recipient,
      );
      if (prepared?.at === create.firstAttemptAt) prepared.at = create.firstAttemptAt;
    }
    const participants = writable(send.participants);
    for (const [index, progress] of Object.entries(participants)) {
      const key = `${progress.inFlight}/${progress.unknown}/${progress.done}`;
      const shared = progresses.get(key);
      if (shared) participants[Number(index)] = shared;
      else progresses.set(key, progress);
    }
    const tracking = document.tracking && writable(document.tracking);
    if (tracking) {
      if (tracking.readAt === tracking.finalizedAt) tracking.readAt = tracking.finalizedAt;
      if (document.updatedAt === tracking.readAt) document.updatedAt = tracking.readAt;
    }
  }
  return state;
}
