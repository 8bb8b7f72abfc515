/**
 * The tray: counts at a glance (sending, waiting for signatures, completed today; ended today
 * and in a status not recognized when there are any) and the menu
 * that keeps the app alive with its window closed: Open, Pause tracking, Start at login, Quit.
 */
import { Menu, Tray, type MenuItemConstructorOptions } from 'electron';
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
  readonly openWindow: () => void;
  readonly quit: () => void;
  /** Undefined where the OS has no login items Electron can set (Linux). */
  readonly loginItem: LoginItem | undefined;
  /** How long event-driven refreshes are coalesced, in ms. */
  readonly refreshDelayMs?: number;
  /** The clock of that delay (default: the system's). */
  readonly clock?: Clock;
}

export interface DeskTray {
  /** Rebuilds the tooltip, title and menu now. */
  refresh(): void;
  /** Refreshes soon, once for a burst of events (sending announces every step). */
  scheduleRefresh(): void;
  destroy(): void;
}

/**
 * "2 sending · 5 waiting for signatures · 3 completed today", then "· 1 ended today" and "· 1 in a
 * status not recognized" only when there are any.
 */
export function describeCounts(counts: TrayCounts): string {
  const rare = [
    ...(counts.endedToday > 0 ? [`${counts.endedToday} ended today`] : []),
    ...(counts.unknownStatus > 0 ? [`${counts.unknownStatus} in a status not recognized`] : []),
  ];
  return [
    `${counts.sending} sending`,
    `${counts.waiting} waiting for signatures`,
    `${counts.completedToday} completed today`,
    ...rare,
  ].join(' · ');
}

/** The tray menu, built from the current state; each item calls back into the options. */
export function trayMenuTemplate(options: DeskTrayOptions, counts: TrayCounts): MenuItemConstructorOptions[] {
  const { service, loginItem } = options;
  const items: MenuItemConstructorOptions[] = [
    { id: 'open', label: `Open ${options.productName}`, click: () => options.openWindow() },
    { type: 'separator' },
    { id: 'sending', label: `Sending: ${counts.sending}`, enabled: false },
    { id: 'waiting', label: `Waiting for signatures: ${counts.waiting}`, enabled: false },
    { id: 'completed', label: `Completed today: ${counts.completedToday}`, enabled: false },
    ...(counts.endedToday > 0
      ? [{ id: 'ended', label: `Ended without signing today: ${counts.endedToday}`, enabled: false }]
      : []),
    ...(counts.unknownStatus > 0
      ? [{ id: 'unknown-status', label: `Status not recognized: ${counts.unknownStatus}`, enabled: false }]
      : []),
    { type: 'separator' },
    {
      id: 'pause-tracking',
      label: 'Pause tracking',
      type: 'checkbox',
      checked: service.trackingPaused(),
      click: (item) => service.setTrackingPaused(item.checked),
    },
  ];
  if (loginItem) {
    items.push({
      id: 'start-at-login',
      label: 'Start at login',
      type: 'checkbox',
      checked: loginItem.isEnabled(),
      click: (item) => loginItem.setEnabled(item.checked),
    });
  }
  items.push({ type: 'separator' }, { id: 'quit', label: 'Quit', click: () => options.quit() });
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
    const counts = options.service.trayCounts();
    const paused = options.service.trackingPaused() ? ' (tracking paused)' : '';
    tray.setToolTip(`${options.productName} — ${describeCounts(counts)}${paused}`);
    // Shown next to the icon on macOS only: kept short.
    tray.setTitle(`${counts.sending} sending · ${counts.waiting} waiting · ${counts.completedToday} done`);
    tray.setContextMenu(
      Menu.buildFromTemplate(trayMenuTemplate({ ...options, service: withRefresh(options.service) }, counts)),
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
