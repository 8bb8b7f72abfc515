import { createHash, timingSafeEqual } from 'node:crypto';
import { isoTimestamp, type SimulatorClock } from './clock';
import type {
  CallRecord,
  DocumentStatus,
  ParticipantRecord,
  RequestStatus,
  SignedRequestRecord,
  SimulatorClient,
  UploadRecord,
} from './types';
import { keyRetentionMs, type ServiceVariant } from './variants';
import { violationLine, type ViolationKind, type ViolationRecord } from './violations';

/** Settings the service's behaviour depends on, resolved from SimulatorOptions. */
export interface ServiceSettings {
  tokenTtlSeconds: number;
  uploadTtlHours: number;
  widgetTtlSeconds: number;
  evidenceDelayMs: number;
  /** The answers chosen where the spec says "not shown". */
  variant: ServiceVariant;
}

/** An upload's metadata; the PDF bytes themselves are never kept. */
export interface StoredUpload {
  uploadId: string;
  clientId: string;
  filename: string;
  sha256: string;
  sizeBytes: number;
  createdAt: number;
  expiresAt: number;
}

export interface StoredParticipant {
  participantId: string;
  participantType: 'signer' | 'observer';
  isInternal: boolean;
  role: string;
  name: string;
  email: string;
  signingOrder: number | null;
  addedLater: boolean;
  signedAt: number | null;
}

export interface StoredSigningRequest {
  id: string;
  clientId: string;
  externalReference: string;
  transactionType: string | null;
  idempotencyKey: string;
  uploadId: string;
  uploadSha256: string;
  filename: string;
  enforceOrder: boolean;
  ownerMustSign: boolean | null;
  ceremonyMode: string | null;
  meetingProvider: string | null;
  evidenceLevel: string | null;
  locale: string | null;
  status: RequestStatus;
  documentStatus: DocumentStatus;
  revision: number | null;
  documentSha256: string | null;
  participants: StoredParticipant[];
  createdAt: number;
  preparedAt: number | null;
  openedAt: number | null;
  finalizedAt: number | null;
}

/** What a create call stored under its idempotency key, to answer replays. */
export interface IdempotencyEntry {
  canonicalBody: string;
  requestId: string;
  createdResponse: Record<string, unknown>;
  /** When the key created its request, by the simulator clock: retention counts from here. */
  createdAt: number;
}

export interface WidgetSession {
  requestId: string;
  expiresAt: number;
}

function sha256Of(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * Everything the simulated service remembers: registered clients, uploads, signing requests,
 * idempotency keys, widget sessions, and the call log and protocol violations tests read back.
 */
export class ServiceState {
  readonly clients = new Map<string, SimulatorClient>();
  readonly uploads = new Map<string, StoredUpload>();
  readonly requests = new Map<string, StoredSigningRequest>();
  /** Keyed by client id, then Idempotency-Key: keys are scoped to the application. */
  readonly idempotency = new Map<string, Map<string, IdempotencyEntry>>();
  readonly widgetSessions = new Map<string, WidgetSession>();
  readonly calls: CallRecord[] = [];
  readonly #violations: ViolationRecord[] = [];
  #sequence = 0;
  readonly clock: SimulatorClock;
  readonly settings: ServiceSettings;

  constructor(clock: SimulatorClock, settings: ServiceSettings, clients: readonly SimulatorClient[]) {
    this.clock = clock;
    this.settings = settings;
    for (const client of clients) this.addClient(client);
  }

  /** Registers (or replaces) a client application. */
  addClient(client: SimulatorClient): void {
    this.clients.set(client.clientId, { ...client, scopes: [...client.scopes] });
  }

  /** The client whose id and secret match, compared in constant time. */
  authenticateClient(clientId: string, clientSecret: string): SimulatorClient | undefined {
    const client = this.clients.get(clientId);
    if (!client) return undefined;
    return timingSafeEqual(sha256Of(client.clientSecret), sha256Of(clientSecret)) ? client : undefined;
  }

  /** Records a protocol violation by a client, as the line `kind: description`. */
  recordViolation(kind: ViolationKind, description: string): void {
    this.#violations.push({
      kind,
      text: violationLine(kind, description),
      at: isoTimestamp(this.clock.now()),
    });
  }

  /** Every violation line, in the order recorded. */
  violationLines(): string[] {
    return this.#violations.map((violation) => violation.text);
  }

  /** Every violation with its kind and time (copies). */
  violationRecords(): ViolationRecord[] {
    return this.#violations.map((violation) => ({ ...violation }));
  }

  /** Calls that arrived and are not answered or closed yet (a test waits for one to be on its way). */
  callsUnderWay = 0;

  /** A number that grows with every event, to order arrivals and answers within one millisecond. */
  nextSequence(): number {
    this.#sequence += 1;
    return this.#sequence;
  }

  /**
   * The entry a key stored, unless the variant's retention has passed since it created its
   * request (by the clock): a forgotten key is treated as never seen.
   */
  idempotencyEntry(clientId: string, key: string): IdempotencyEntry | undefined {
    const keys = this.idempotency.get(clientId);
    const entry = keys?.get(key);
    if (!entry) return undefined;
    if (this.clock.now() - entry.createdAt >= keyRetentionMs(this.settings.variant)) {
      keys?.delete(key);
      return undefined;
    }
    return entry;
  }

  rememberIdempotencyKey(clientId: string, key: string, entry: IdempotencyEntry): void {
    let keys = this.idempotency.get(clientId);
    if (!keys) {
      keys = new Map();
      this.idempotency.set(clientId, keys);
    }
    keys.set(key, entry);
  }

  /** The request when it exists and belongs to `clientId`; another client's request is not found. */
  requestOf(clientId: string, requestId: string): StoredSigningRequest | undefined {
    const request = this.requests.get(requestId);
    return request?.clientId === clientId ? request : undefined;
  }

  /** A widget session that exists and has not expired by the clock. */
  liveWidgetSession(token: string): WidgetSession | undefined {
    const session = this.widgetSessions.get(token);
    return session && this.clock.now() < session.expiresAt ? session : undefined;
  }

  isUploadExpired(upload: StoredUpload): boolean {
    return this.clock.now() >= upload.expiresAt;
  }

  /** evidence.ready: computed from the clock, so it turns true by itself after the delay. */
  isEvidenceReady(request: StoredSigningRequest): boolean {
    return (
      request.finalizedAt !== null && this.clock.now() >= request.finalizedAt + this.settings.evidenceDelayMs
    );
  }

  /** Snapshot of every signing request, in creation order. */
  requestRecords(): SignedRequestRecord[] {
    return [...this.requests.values()].map((request) => this.#requestRecord(request));
  }

  /** Number of signing requests per external_reference. */
  countByExternalReference(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const request of this.requests.values()) {
      counts[request.externalReference] = (counts[request.externalReference] ?? 0) + 1;
    }
    return counts;
  }

  /** Snapshot of every upload, in creation order. */
  uploadRecords(): UploadRecord[] {
    return [...this.uploads.values()].map((upload) => ({
      uploadId: upload.uploadId,
      clientId: upload.clientId,
      filename: upload.filename,
      sha256: upload.sha256,
      sizeBytes: upload.sizeBytes,
      createdAt: isoTimestamp(upload.createdAt),
      expiresAt: isoTimestamp(upload.expiresAt),
      expired: this.isUploadExpired(upload),
    }));
  }

  /** Snapshot of the call log. */
  callRecords(): CallRecord[] {
    return this.calls.map((call) => ({ ...call }));
  }

  /** Number of calls per operation name. */
  callCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const call of this.calls) counts[call.operation] = (counts[call.operation] ?? 0) + 1;
    return counts;
  }

  #requestRecord(request: StoredSigningRequest): SignedRequestRecord {
    const optionalIso = (ms: number | null) => (ms === null ? null : isoTimestamp(ms));
    const participants: ParticipantRecord[] = request.participants.map((participant) => ({
      participantId: participant.participantId,
      participantType: participant.participantType,
      isInternal: participant.isInternal,
      role: participant.role,
      name: participant.name,
      email: participant.email,
      signingOrder: participant.signingOrder,
      addedLater: participant.addedLater,
      signedAt: optionalIso(participant.signedAt),
    }));
    return {
      id: request.id,
      clientId: request.clientId,
      externalReference: request.externalReference,
      transactionType: request.transactionType,
      idempotencyKey: request.idempotencyKey,
      uploadId: request.uploadId,
      filename: request.filename,
      status: request.status,
      documentStatus: request.documentStatus,
      revision: request.revision,
      documentSha256: request.documentSha256,
      evidenceReady: this.isEvidenceReady(request),
      enforceOrder: request.enforceOrder,
      ownerMustSign: request.ownerMustSign,
      ceremonyMode: request.ceremonyMode,
      meetingProvider: request.meetingProvider,
      evidenceLevel: request.evidenceLevel,
      locale: request.locale,
      participants,
      createdAt: isoTimestamp(request.createdAt),
      preparedAt: optionalIso(request.preparedAt),
      openedAt: optionalIso(request.openedAt),
      finalizedAt: optionalIso(request.finalizedAt),
    };
  }
}
