/**
 * Ceremonies in the browser host: each one in its own Chromium app window with a throwaway
 * incognito profile. The widget URL is a secret, so the window is pointed at a single-use
 * handoff link of the host, which decides only when it is followed which URL to redirect to:
 * the session's, or a renewed session's if that one has expired (an expired URL is never loaded).
 */
import { CeremonyWindowFailure } from '../app/ceremony-window-failure';
import type { CeremonyOpener, CeremonyRequest } from '../app/ports';
import { serviceFailureWords } from '../domain/service-failure';
import type { Logger } from '../base/log';
import { words } from '../base/words';
import { systemClock, type Clock } from '../time/clock';
import { openAppWindow, type AppWindow } from './app-window';
import type { HandoffTarget } from './host-server';

export interface ChromiumCeremonyOpenerOptions {
  /** The host's one-time links (BrowserHost.handoff). */
  readonly handoff: (target: HandoffTarget) => string;
  readonly logger: Logger;
  readonly executable?: string;
  /** The clock `session.expiresAt` is measured on, and the open grace runs on (default: the system's). */
  readonly clock?: Clock;
  /** Whether there is a display to open windows on (default: DISPLAY or WAYLAND_DISPLAY is set, or not Linux). */
  readonly hasDisplay?: () => boolean;
  /** How long a window may take to follow its link before it counts as open anyway (default 5 s). */
  readonly openGraceMs?: number;
}

/** A window still starting after this long is left to open in its own time. */
export const OPEN_GRACE_MS = 5_000;

function displayPresent(): boolean {
  return process.platform !== 'linux' || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/** A ceremony opener whose windows can all be closed when the host stops. */
export interface ClosableCeremonyOpener extends CeremonyOpener {
  closeAll(): Promise<void>;
}

/**
 * The widget URL to load now, renewing the session first when it has expired. Its words are in
 * the language of the call that made it (the ceremony's opening), not the link's later request.
 */
export function currentWidgetUrl(request: CeremonyRequest, now: () => number): HandoffTarget {
  const t = words();
  return async () => {
    if (now() < request.session.expiresAt) return { location: request.session.widgetUrl.reveal() };
    const renewed = await request.renew();
    if (!renewed.ok)
      return { failure: t('host.ceremonyNotReopened', { reason: serviceFailureWords(renewed.error, t) }) };
    return { location: renewed.value.widgetUrl.reveal() };
  };
}

/**
 * Opens each ceremony in a Chromium app window; `onClosed` runs when that window's process
 * exits. Opening a document's ceremony again replaces its window (one window per document).
 * A window whose process ends before it followed its link did not open: `open` rejects with
 * a CeremonyWindowFailure that says why (no display, the browser's exit code), never in silence.
 */
export function createChromiumCeremonyOpener(options: ChromiumCeremonyOpenerOptions): ClosableCeremonyOpener {
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const hasDisplay = options.hasDisplay ?? displayPresent;
  const graceMs = options.openGraceMs ?? OPEN_GRACE_MS;
  const windows = new Map<string, AppWindow>();
  return {
    async open(request) {
      await windows.get(request.key)?.close();
      let followed!: () => void;
      const linkFollowed = new Promise<'opened'>((resolve) => (followed = () => resolve('opened')));
      const target = currentWidgetUrl(request, now);
      // A starting browser is real work a virtual clock cannot see (a child process): marked,
      // so a test's clock does not jump to the grace while the browser is still starting.
      const starting = clock.busy();
      let cancelGrace = (): void => undefined;
      let outcome: 'opened' | { readonly code: number | null };
      let window: AppWindow;
      try {
        window = await openAppWindow({
          url: options.handoff(() => {
            followed();
            return target();
          }),
          label: 'ceremony',
          logger: options.logger,
          ...(options.executable ? { executable: options.executable } : {}),
        });
        outcome = await Promise.race([
          linkFollowed,
          window.exited,
          new Promise<'opened'>((resolve) => (cancelGrace = clock.timer(graceMs, () => resolve('opened')))),
        ]);
      } finally {
        starting();
        cancelGrace();
      }
      if (outcome !== 'opened') {
        options.logger.log('warn', 'ceremony.window_failed', { code: outcome.code });
        throw new CeremonyWindowFailure(
          hasDisplay() ? { kind: 'exited', code: outcome.code } : { kind: 'no_display' },
        );
      }
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
