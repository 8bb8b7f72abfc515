/**
 * The renderer's one store: the state mirrored from main, the waits the desk shows, and
 * `actions`, one area per capability (store-shape.ts), each from its own file. Screens read the
 * state and call `actions.<area>.<verb>`; only the actions reach the bridge.
 */
import { create } from 'zustand';
import { appActions } from './app';
import { batchesActions } from './batches';
import { ceremonyActions } from './ceremony';
import { dialogsActions } from './dialogs';
import { documentsActions } from './documents';
import { manifestActions } from './manifest';
import { pageActions } from './page';
import { profilesActions } from './profiles';
import { reportActions } from './report';
import { sendingActions } from './sending';
import type { DeskStore, StoreKit } from './store-shape';
import { trackingActions } from './tracking';
import { initialState } from './transitions';

export const useDesk = create<DeskStore>((setState, get) => {
  const kit: StoreKit = {
    set: (transition) => setState((state) => transition(state)),
    setWaits: (waits) => setState(waits),
    get,
    t: (id, values) => get().translator.t(id, values),
  };
  return {
    ...initialState,
    keychainWaiting: false,
    ceremonyAttempt: undefined,
    actions: {
      app: appActions(kit),
      page: pageActions(kit),
      profiles: profilesActions(kit),
      batches: batchesActions(kit),
      dialogs: dialogsActions(kit),
      documents: documentsActions(kit),
      manifest: manifestActions(kit),
      sending: sendingActions(kit),
      ceremony: ceremonyActions(kit),
      tracking: trackingActions(kit),
      report: reportActions(kit),
    },
  };
});
