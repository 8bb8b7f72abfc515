import type { BatchState, CreationKey, ParticipantProgress, SendRecord } from './batch-state';

type StoredParticipantProgress = ParticipantProgress | 'attempted' | 'added' | 'already_there';

/**
 * Brings a batch state written by an earlier version (a snapshot) to today's shape. Earlier
 * versions kept participant progress as a word and no attempt facts with the creation key: an
 * outstanding key or marker is read as "an attempt may be on its way", as it was then.
 */
export function upgradeBatchState(state: BatchState): BatchState {
  return {
    ...state,
    documents: state.documents.map((document) => {
      const send = document.send as SendRecord & {
        readonly create?: Partial<CreationKey> & Omit<CreationKey, 'firstAttemptAt' | 'inFlight' | 'unknown'>;
        readonly participants: Readonly<Record<number, StoredParticipantProgress>>;
      };
      const participants = Object.fromEntries(
        Object.entries(send.participants).map(([index, progress]) => [
          index,
          typeof progress === 'string'
            ? {
                inFlight: progress === 'attempted',
                unknown: false,
                done: progress === 'attempted' ? undefined : progress,
              }
            : progress,
        ]),
      );
      const create = send.create && {
        ...send.create,
        firstAttemptAt: send.create.firstAttemptAt ?? document.updatedAt,
        inFlight: send.create.inFlight ?? true,
        unknown: send.create.unknown ?? false,
      };
      return {
        ...document,
        send: {
          ...send,
          create,
          participants,
          check: send.check,
          upload: send.upload && { ...send.upload, expiresAt: send.upload.expiresAt ?? undefined },
          // Snapshots of earlier versions did not keep it; their journals' links are folded anew.
          linkedPreparedAt: send.linkedPreparedAt ?? undefined,
        },
      };
    }),
  };
}
