/** The `tracking.*` channels: reading the open requests' statuses now, once more, or not at all. */
import { desk, unwrap } from '../bridge';
import { attempt } from './call-failures';
import type { StoreKit } from './store-shape';
import { withNotice } from './transitions';

export interface TrackingActions {
  /**
   * Reads every open request (of one batch, or all) now, and says how many; while tracking is
   * paused, that they are read once and tracking stays paused.
   */
  refreshNow(batchId?: string): Promise<void>;
  /** A request its service said was gone: read it once more; tracked again if it answers. */
  checkAgain(batchId: string, documentId: string): Promise<void>;
  setPaused(paused: boolean): Promise<void>;
}

export function trackingActions(kit: StoreKit): TrackingActions {
  const { set, t } = kit;
  return {
    async refreshNow(batchId) {
      const refreshed = await attempt(kit, () => unwrap(desk().tracking.refreshNow(batchId)));
      if (!refreshed) return;
      const words = refreshed.paused ? 'common.refreshingPaused' : 'common.refreshing';
      const unreadable = refreshed.unreadable ?? 0;
      // "Nothing to check" only when no request waits anywhere, readable or not.
      const checking =
        refreshed.reading > 0 || unreadable === 0 ? [t(words, { count: refreshed.reading })] : [];
      const notChecked = unreadable > 0 ? [t('common.refreshUnreadable', { count: unreadable })] : [];
      const text = [...checking, ...notChecked].join(' ');
      set((state) => withNotice(state, unreadable > 0 ? 'warning' : 'info', text));
    },
    async checkAgain(batchId, documentId) {
      const found = await attempt(kit, async () => {
        await unwrap(desk().tracking.checkAgain(batchId, documentId));
        return true;
      });
      if (found) set((state) => withNotice(state, 'success', t('common.trackedAgain')));
    },
    async setPaused(paused) {
      await attempt(kit, () => unwrap(desk().tracking.setPaused(paused)));
    },
  };
}
