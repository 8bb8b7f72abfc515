/**
 * What the service's successful answers told the app, as far as they could be read: the words the
 * step machine decides with and the service client produces.
 */
import type { Upload } from '../../shared/service/wire';

/** What a creation's 2xx answer told, as far as it could be read (spec §4.3). */
export interface CreationAnswer {
  /** The request's id; undefined when the answer had no readable id (empty or unreadable body). */
  readonly id: string | undefined;
  /** `idempotent_replay` when the answer gave it as a boolean; undefined otherwise. */
  readonly replayed: boolean | undefined;
  /**
   * When the answer had no readable id: the request its same-origin `Location` names, to be
   * confirmed by a read before it is trusted (undefined without one).
   */
  readonly locationId: string | undefined;
  /**
   * True when an earlier attempt of this same call may have reached the service (timeout,
   * connection lost after sending, 5xx other than 503) before this answer arrived.
   */
  readonly earlierAttemptUnknown: boolean;
  /** When the service answered, by its own clock (`Date`, epoch ms); undefined without one. */
  readonly serviceTime?: number | undefined;
}

/** An upload as the service answered it (spec §4.2), and when, by its own clock (`Date`). */
export type UploadAnswer = Upload & { readonly serviceTime?: number | undefined };

/** What adding a participant told (spec §4.5). */
export interface ParticipantAnswer {
  /** Undefined when the 2xx answer had no readable `participant.participant_id`. */
  readonly participantId: string | undefined;
}

export interface PrepareOutcome {
  /** True when the request had already been prepared (by an attempt whose answer was lost). */
  readonly alreadyPrepared: boolean;
  /** From the prepare answer, else from a read of the request; undefined when neither gave them. */
  readonly revision: number | undefined;
  readonly sha256: string | undefined;
}
