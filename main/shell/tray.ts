/**
 * The tray: counts at a glance (sending, waiting for signatures, completed today; ended today
 * and in a status not recognized when there are any) and the menu
 * that keeps the app alive with its window closed: Open, Pause tracking, Start at login, Quit.
 * Every word is the desk's language, read again at each refresh (`words`), so a change of the
 * language setting shows at the next one.
 */
import { Menu, Tray, type MenuItemConstructorOptions } from 'electron';
import { englishWords, type Translator } from '../../shared/i18n/translator';
import type { DeskService } from '../app/desk-service';
import { systemClock, type Cancel, type Clock } from '../time/clock';

export type TrayCounts = ReturnType<DeskService['trayCounts']>;

/** Start at login, where the OS offers it (macOS and Windows). */
export interface LoginItem {
  isEnabled(): boolean;
  setEnabled(enabled: boolean): void;
}

export interface DeskTrayOptions {
  readonly iconFile: string;
  readonly productName: string;
  readonly service: Pick<DeskService, 'trayCounts' | 'trackingPaused' | 'setTrackingPaused'>;
  /** The desk's language now (its setting, or the OS's); English when not given. */
  readonly words?: () => Translator['t'];
  readonly openWindow: () => void;
  readonly quit: () => void;
  /** Tells the person of a problem the tray met (a system notification in Electron): title, words. */
  readonly tellProblem?: (title: string, message: string) => void;
  /** Undefined where the OS has no login items Electron can set (Linux). */
  readonly loginItem: LoginItem | undefined;
  /** How long event-driven refreshes are coalesced, in ms. */
  readonly refreshDelayMs?: number;
  /** The clock of that delay (default: the system's). */
  readonly clock?: Clock;
}

export interface DeskTray {
  /** Rebuilds the tooltip, title and menu now, in the desk's language now. */
  refresh(): void;
  /** Refreshes soon, once for a burst of events (sending announces every step). */
  scheduleRefresh(): void;
  destroy(): void;
}

/**
 * "2 sending · 5 waiting for signatures · 3 completed today", then "· 1 ended today" and "· 1 in a
 * status not recognized" only when there are any; each count with its language's plural.
 */
export function describeCounts(counts: TrayCounts, t: Translator['t'] = englishWords()): string {
  const rare = [
    ...(counts.endedToday > 0 ? [t('tray.endedToday', { count: counts.endedToday })] : []),
    ...(counts.unknownStatus > 0 ? [t('tray.unknownStatus', { count: counts.unknownStatus })] : []),
  ];
  return [
    t('tray.sending', { count: counts.sending }),
    t('tray.waiting', { count: counts.waiting }),
    t('tray.completedToday', { count: counts.completedToday }),
    ...rare,
  ].join(' · ');
}

/** The tray menu, built from the current state; each item calls back into the options. */
export function trayMenuTemplate(
  options: DeskTrayOptions,
  counts: TrayCounts,
  t: Translator['t'] = englishWords(),
): MenuItemConstructorOptions[] {
  const { service, loginItem } = options;
  const items: MenuItemConstructorOptions[] = [
    { id: 'open', label: t('tray.open', { name: options.productName }), click: () => options.openWindow() },
    { type: 'separator' },
    { id: 'sending', label: t('tray.sendingItem', { count: counts.sending }), enabled: false },
    { id: 'waiting', label: t('tray.waitingItem', { count: counts.waiting }), enabled: false },
    { id: 'completed', label: t('tray.completedItem', { count: counts.completedToday }), enabled: false },
    ...(counts.endedToday > 0
      ? [{ id: 'ended', label: t('tray.endedItem', { count: counts.endedToday }), enabled: false }]
      : []),
    ...(counts.unknownStatus > 0
      ? [
          {
            id: 'unknown-status',
            label: t('tray.unknownStatusItem', { count: counts.unknownStatus }),
            enabled: false,
          },
        ]
      : []),
    { type: 'separator' },
    {
      id: 'pause-tracking',
      label: t('tray.pauseTracking'),
      type: 'checkbox',
      checked: service.trackingPaused(),
      click: (item) => service.setTrackingPaused(item.checked),
    },
  ];
  if (loginItem) {
    items.push({
      id: 'start-at-login',
      label: t('tray.startAtLogin'),
      type: 'checkbox',
      checked: loginItem.isEnabled(),
      click: (item) => {
        // A path the login entry cannot hold, or a settings folder that cannot be written: said,
        // never thrown from a menu click (the menu is rebuilt from the real state after).
        try {
          loginItem.setEnabled(item.checked);
        } catch {
          options.tellProblem?.(
            t('tray.startAtLogin'),
            t('tray.startAtLoginFailed', { name: options.productName }),
          );
        }
      },
    });
  }
  items.push({ type: 'separator' }, { id: 'quit', label: t('tray.quit'), click: () => options.quit() });
  return items;
}

/** Creates the tray icon; the caller refreshes it when batches or statuses change. */
export function createDeskTray(options: DeskTrayOptions): DeskTray {
  const tray = new Tray(options.iconFile);
  const delay = options.refreshDelayMs ?? 1000;
  const clock = options.clock ?? systemClock;
  let cancelTimer: Cancel | undefined;

  const refresh = () => {
    if (tray.isDestroyed()) return;
    const t = options.words?.() ?? englishWords();
    const counts = options.service.trayCounts();
    const tooltip = options.service.trackingPaused() ? 'tray.tooltipPaused' : 'tray.tooltip';
    tray.setToolTip(t(tooltip, { name: options.productName, counts: describeCounts(counts, t) }));
    // Shown next to the icon on macOS only: kept short.
    tray.setTitle(
      t('tray.title', { sending: counts.sending, waiting: counts.waiting, done: counts.completedToday }),
    );
    tray.setContextMenu(
      Menu.buildFromTemplate(
        trayMenuTemplate(
          { ...options, service: withRefresh(options.service), loginItem: refreshingLoginItem },
          counts,
          t,
        ),
      ),
    );
  };
  // Toggling tracking from the menu updates the tooltip and checkbox at once.
  const withRefresh = (service: DeskTrayOptions['service']): DeskTrayOptions['service'] => ({
    trayCounts: () => service.trayCounts(),
    trackingPaused: () => service.trackingPaused(),
    setTrackingPaused: (paused) => {
      service.setTrackingPaused(paused);
      refresh();
    },
  });

  // The checkbox shows whether start at login is on, as it really is after a click.
  const { loginItem } = options;
  const refreshingLoginItem: LoginItem | undefined = loginItem && {
    isEnabled: () => loginItem.isEnabled(),
    setEnabled(enabled) {
      try {
        loginItem.setEnabled(enabled);
      } finally {
        refresh();
      }
    },
  };
  tray.on('click', () => options.openWindow());
  refresh();
  return {
    refresh,
    scheduleRefresh() {
      if (cancelTimer) return;
      cancelTimer = clock.timer(
        delay,
        () => {
          cancelTimer = undefined;
          refresh();
        },
        true,
      );
    },
    destroy() {
      cancelTimer?.();
      cancelTimer = undefined;
      if (!tray.isDestroyed()) tray.destroy();
    },
  };
}
