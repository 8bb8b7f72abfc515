/**
 * Main's events (`desk().events.*`), each mirrored into the store as it comes: main is the source
 * of truth, the page follows.
 */
import { desk } from '../bridge';
import type { StoreKit } from './store-shape';
import {
  withBatchSummary,
  withNotice,
  withoutBatch,
  withProfiles,
  withProgress,
  withTrackingChecked,
  withTrackingPaused,
  withTrackingStatus,
} from './transitions';

/** Re-reads a batch at most every 250 ms while events stream in, so big batches stay smooth. */
function throttled(load: (batchId: string) => void): (batchId: string) => void {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  return (batchId) => {
    if (timers.has(batchId)) return;
    timers.set(
      batchId,
      setTimeout(() => {
        timers.delete(batchId);
        load(batchId);
      }, 250),
    );
  };
}

/**
 * What listens to main's events for the store: each call subscribes to them all and returns the
 * function that unsubscribes them. The open batch's detail is read anew when its events say it moved.
 */
export function mainEventListener({ set, setWaits, get, t }: StoreKit): () => () => void {
  const reloadDetail = throttled((batchId) => {
    if (get().screen.name === 'batch' && get().details[batchId]) void get().actions.batches.get(batchId);
  });
  return () => {
    const events = desk().events;
    const unsubscribers = [
      events.batch.changed(({ batch }) => {
        set((state) => withBatchSummary(state, batch));
        reloadDetail(batch.id);
      }),
      events.batch.deleted(({ batchId }) => set((state) => withoutBatch(state, batchId))),
      events.sending.progress((payload) => set((state) => withProgress(state, payload))),
      events.sending.state(({ batchId, engine }) => {
        if (engine.state === 'stopped' && engine.reason)
          set((state) => withNotice(state, 'error', engine.reason ?? ''));
        reloadDetail(batchId);
      }),
      events.tracking.status((payload) => set((state) => withTrackingStatus(state, payload))),
      events.tracking.checked((payload) => set((state) => withTrackingChecked(state, payload))),
      events.tracking.completed(({ externalReference, batchId }) => {
        set((state) =>
          withNotice(
            state,
            'success',
            t('common.fullySigned', {
              reference: externalReference,
              batch: state.batches[batchId]?.name ?? batchId,
            }),
          ),
        );
        reloadDetail(batchId);
      }),
      // The ceremony window closed: its document's state may have moved on.
      events.ceremony.closed(({ batchId }) => reloadDetail(batchId)),
      events.profiles.changed(({ profiles }) => set((state) => withProfiles(state, profiles))),
      events.tracking.paused(({ paused }) => set((state) => withTrackingPaused(state, paused))),
      events.keychain.waiting(({ waiting }) => setWaits({ keychainWaiting: waiting })),
    ];
    return () => unsubscribers.forEach((unsubscribe) => unsubscribe());
  };
}
