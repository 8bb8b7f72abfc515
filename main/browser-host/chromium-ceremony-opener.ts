/**
 * Ceremonies in the browser host: each one in its own Chromium app window with a throwaway
 * incognito profile. The widget URL is a secret, so the window is pointed at a single-use
 * handoff link of the host, which decides only when it is followed which URL to redirect to:
 * the session's, or a renewed session's if that one has expired (an expired URL is never loaded).
 */
import type { CeremonyOpener, CeremonyRequest } from '../app/ports';
import type { Logger } from '../log';
import { openAppWindow, type AppWindow } from './app-window';
import type { HandoffTarget } from './host-server';

export interface ChromiumCeremonyOpenerOptions {
  /** The host's one-time links (BrowserHost.handoff). */
  readonly handoff: (target: HandoffTarget) => string;
  readonly logger: Logger;
  readonly executable?: string;
  /** The local clock that `session.expiresAt` is measured on. */
  readonly now?: () => number;
}

/** A ceremony opener whose windows can all be closed when the host stops. */
export interface ClosableCeremonyOpener extends CeremonyOpener {
  closeAll(): Promise<void>;
}

/** The widget URL to load now, renewing the session first when it has expired. */
export function currentWidgetUrl(request: CeremonyRequest, now: () => number): HandoffTarget {
  return async () => {
    if (now() < request.session.expiresAt) return { location: request.session.widgetUrl.reveal() };
    const renewed = await request.renew();
    if (!renewed.ok) return { failure: `The ceremony could not be reopened: ${renewed.error.message}` };
    return { location: renewed.value.widgetUrl.reveal() };
  };
}

/**
 * Opens each ceremony in a Chromium app window; `onClosed` runs when that window's process
 * exits. Opening a document's ceremony again replaces its window (one window per document).
 */
export function createChromiumCeremonyOpener(options: ChromiumCeremonyOpenerOptions): ClosableCeremonyOpener {
  const now = options.now ?? Date.now;
  const windows = new Map<string, AppWindow>();
  return {
    async open(request) {
      await windows.get(request.key)?.close();
      const window = await openAppWindow({
        url: options.handoff(currentWidgetUrl(request, now)),
        label: 'ceremony',
        logger: options.logger,
        ...(options.executable ? { executable: options.executable } : {}),
      });
      windows.set(request.key, window);
      void window.exited.then(() => {
        if (windows.get(request.key) === window) windows.delete(request.key);
        request.onClosed();
      });
    },
    async closeAll() {
      await Promise.all([...windows.values()].map((window) => window.close()));
    },
  };
}
