/**
 * The page's own actions, which call no channel: the screen shown, and the notices over it.
 */
import type { StoreKit } from './store-shape';
import { withNotice, withoutNotice, withScreen, type Notice, type Screen } from './transitions';

export interface PageActions {
  /** Shows `screen`; a batch's is read anew from main (`batches.get`). */
  navigate(screen: Screen): void;
  notify(kind: Notice['kind'], text: string): void;
  dismiss(id: number): void;
  /** Copies text to the clipboard and says so (or why it could not). */
  copyText(text: string, confirmation: string): Promise<void>;
}

export function pageActions({ set, get, t }: StoreKit): PageActions {
  return {
    navigate(screen) {
      set((state) => withScreen(state, screen));
      if (screen.name === 'batch') void get().actions.batches.get(screen.batchId);
    },
    notify: (kind, text) => set((state) => withNotice(state, kind, text)),
    dismiss: (id) => set((state) => withoutNotice(state, id)),
    async copyText(text, confirmation) {
      try {
        await navigator.clipboard.writeText(text);
        set((state) => withNotice(state, 'success', confirmation));
      } catch {
        set((state) => withNotice(state, 'error', t('common.clipboardUnavailable')));
      }
    },
  };
}
