/**
 * The `app.*` channels (the app's info, its language), and the store's link to main: listening to
 * its events, reading everything anew when the link comes back, hearing when it is lost.
 */
import type { ConnectionChange } from '../../../shared/ipc/bridge';
import type { LanguageSetting } from '../../../shared/i18n/languages';
import type { AppInfo } from '../../../shared/ipc/views';
import { desk, unwrap } from '../bridge';
import { attempt } from './call-failures';
import { mainEventListener } from './main-events';
import type { StoreKit } from './store-shape';
import { withFirstScreen, withLanguage } from './transitions';

export interface AppActions {
  /** Listens to main's events and reads everything once; returns the function that stops listening. */
  connect(): () => void;
  /** Reads the app's info, batches, connections and the open batch anew (after the backend came back). */
  resync(): Promise<void>;
  /** The language setting ("system" follows the OS): kept by main, spoken at once. */
  setLanguage(setting: LanguageSetting): Promise<void>;
  /**
   * The bridge's `onConnectionChange`: `listener` hears when the page lost its backend and when it
   * is back; undefined where the backend cannot go away (Electron), else the function that stops it.
   */
  onConnectionChange(listener: (change: ConnectionChange) => void): (() => void) | undefined;
}

export function appActions(kit: StoreKit): AppActions {
  const { set, get } = kit;
  const listen = mainEventListener(kit);

  /** The app's info, and the language it says the desk speaks. */
  function showInfo(info: AppInfo): void {
    set((state) => withLanguage({ ...state, info }, info.language, info.locale));
  }

  return {
    connect() {
      const stop = listen();
      void get().actions.app.resync();
      return stop;
    },
    async resync() {
      const { actions } = get();
      await attempt(kit, async () => {
        showInfo(await unwrap(desk().app.info()));
        await Promise.all([actions.batches.list(), actions.profiles.list()]);
        set(withFirstScreen);
      });
      const screen = get().screen;
      if (screen.name === 'batch') await actions.batches.get(screen.batchId);
    },
    async setLanguage(setting) {
      const info = await attempt(kit, () => unwrap(desk().app.setLanguage(setting)));
      if (info) showInfo(info);
    },
    onConnectionChange: (listener) => desk().onConnectionChange?.(listener),
  };
}
