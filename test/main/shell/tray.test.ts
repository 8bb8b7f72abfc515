import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { App } from 'electron';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AUTOSTART_ID,
  launchedAtLogin,
  START_HIDDEN_FLAG,
  systemLoginItem,
} from '../../../main/shell/login-item';
import { createDeskTray, describeCounts, type DeskTray, type LoginItem } from '../../../main/shell/tray';
import type { Language } from '../../../shared/i18n/languages';
import { createTranslator } from '../../../shared/i18n/translator';
import { app, asElectron, FakeTray, resetFakeElectron, type FakeMenu } from './fake-electron';

vi.mock('electron', () => import('./fake-electron'));

const QUIET = { endedToday: 0, unknownStatus: 0 };
let counts = { sending: 2, waiting: 5, completedToday: 3, ...QUIET };
let paused = false;
const service = {
  trayCounts: () => counts,
  trackingPaused: () => paused,
  setTrackingPaused: vi.fn((value: boolean) => {
    paused = value;
  }),
};
const openWindow = vi.fn();
const quit = vi.fn();
let tray: DeskTray | undefined;

beforeEach(() => {
  resetFakeElectron();
  counts = { sending: 2, waiting: 5, completedToday: 3, ...QUIET };
  paused = false;
  service.setTrackingPaused.mockClear();
  openWindow.mockClear();
  quit.mockClear();
});
afterEach(() => {
  language = undefined;
  tray?.destroy();
  vi.useRealTimers();
});

/** The desk's language, as the tray reads it at each refresh. */
let language: Language | undefined;

function makeTray(loginItem?: LoginItem): FakeTray {
  tray = createDeskTray({
    iconFile: '/app/build/tray.png',
    productName: 'Signing Batch Desk',
    service,
    ...(language ? { words: () => createTranslator(language ?? 'en').t } : {}),
    openWindow,
    quit,
    loginItem,
    refreshDelayMs: 500,
  });
  const created = FakeTray.trays.at(-1);
  if (!created) throw new Error('no tray');
  return created;
}

const menuOf = (fake: FakeTray): FakeMenu => {
  if (!fake.contextMenu) throw new Error('no menu');
  return fake.contextMenu;
};
const item = (fake: FakeTray, id: string) => menuOf(fake).items.find((candidate) => candidate.id === id);

describe('the tray', () => {
  it('shows the counts in its tooltip, title and menu', () => {
    const fake = makeTray();
    expect(fake.image).toBe('/app/build/tray.png');
    expect(fake.tooltip).toBe(
      'Signing Batch Desk — 2 sending · 5 waiting for signatures · 3 completed today',
    );
    expect(fake.title).toBe('2 sending · 5 waiting · 3 done');
    expect(item(fake, 'sending')).toMatchObject({ label: 'Sending: 2', enabled: false });
    expect(item(fake, 'waiting')).toMatchObject({ label: 'Waiting for signatures: 5', enabled: false });
    expect(item(fake, 'completed')).toMatchObject({ label: 'Completed today: 3', enabled: false });
  });

  it('has Open, Pause tracking, Start at login and Quit, in that order', () => {
    const fake = makeTray({ isEnabled: () => false, setEnabled: vi.fn() });
    const ids = menuOf(fake)
      .items.filter((entry) => entry.id)
      .map((entry) => entry.id);
    expect(ids).toEqual([
      'open',
      'sending',
      'waiting',
      'completed',
      'pause-tracking',
      'start-at-login',
      'quit',
    ]);
    expect(item(fake, 'pause-tracking')).toMatchObject({
      type: 'checkbox',
      checked: false,
      label: 'Pause tracking',
    });
    expect(item(fake, 'start-at-login')).toMatchObject({ type: 'checkbox', checked: false });
  });

  it('has no Start at login where the OS offers none', () => {
    expect(item(makeTray(undefined), 'start-at-login')).toBeUndefined();
  });

  it('opens the window from the menu and from a click on the icon', () => {
    const fake = makeTray();
    menuOf(fake).click('open');
    fake.emit('click');
    expect(openWindow).toHaveBeenCalledTimes(2);
  });

  it('toggles tracking with Pause tracking and shows the new state at once', () => {
    const fake = makeTray();
    menuOf(fake).click('pause-tracking');
    expect(service.setTrackingPaused).toHaveBeenLastCalledWith(true);
    expect(item(fake, 'pause-tracking')?.checked).toBe(true);
    expect(fake.tooltip).toContain('(tracking paused)');

    menuOf(fake).click('pause-tracking');
    expect(service.setTrackingPaused).toHaveBeenLastCalledWith(false);
    expect(item(fake, 'pause-tracking')?.checked).toBe(false);
    expect(fake.tooltip).not.toContain('paused');
  });

  it('sets the login item with Start at login', () => {
    let enabled = false;
    const loginItem = {
      isEnabled: () => enabled,
      setEnabled: vi.fn((value: boolean) => {
        enabled = value;
      }),
    };
    const fake = makeTray(loginItem);
    menuOf(fake).click('start-at-login');
    expect(loginItem.setEnabled).toHaveBeenCalledWith(true);
  });

  it('a Start at login the system refuses is said in the person’s language, and the box shows it is still off', () => {
    const tellProblem = vi.fn();
    const refusing: LoginItem = {
      isEnabled: () => false,
      setEnabled: () => {
        throw new Error('Start at login cannot be set up: the app’s path contains a control character');
      },
    };
    tray = createDeskTray({
      iconFile: '/app/build/tray.png',
      productName: 'Signing Batch Desk',
      service,
      words: () => createTranslator('fr').t,
      openWindow,
      quit,
      loginItem: refusing,
      tellProblem,
    });
    const fake = FakeTray.trays.at(-1)!;
    expect(() => menuOf(fake).click('start-at-login')).not.toThrow();
    expect(tellProblem).toHaveBeenCalledExactlyOnceWith(
      'Lancer à l’ouverture de session',
      'Signing Batch Desk n’a pas pu être réglé pour se lancer à l’ouverture de session. Vérifiez que votre dossier de réglages est accessible en écriture et que le chemin du dossier de l’application ne contient pas de caractères inhabituels.',
    );
    expect(item(fake, 'start-at-login')).toMatchObject({ checked: false });
  });

  it('quits only from Quit', () => {
    const fake = makeTray();
    menuOf(fake).click('quit');
    expect(quit).toHaveBeenCalledOnce();
  });

  it('refreshes on demand, and once for a burst of events', () => {
    vi.useFakeTimers();
    const fake = makeTray();
    counts = { sending: 0, waiting: 6, completedToday: 4, ...QUIET };
    tray?.scheduleRefresh();
    tray?.scheduleRefresh();
    tray?.scheduleRefresh();
    expect(fake.tooltip).toContain('2 sending');
    vi.advanceTimersByTime(500);
    expect(fake.tooltip).toBe(
      'Signing Batch Desk — 0 sending · 6 waiting for signatures · 4 completed today',
    );
    counts = { sending: 1, waiting: 6, completedToday: 4, ...QUIET };
    tray?.refresh();
    expect(item(fake, 'sending')?.label).toBe('Sending: 1');
  });

  it('describes counts in words', () => {
    expect(describeCounts({ sending: 0, waiting: 1, completedToday: 0, ...QUIET })).toBe(
      '0 sending · 1 waiting for signatures · 0 completed today',
    );
  });

  it('says requests that ended today or stand in a status not recognized, only when there are any', () => {
    expect(
      describeCounts({ sending: 0, waiting: 1, completedToday: 0, endedToday: 2, unknownStatus: 1 }),
    ).toBe(
      '0 sending · 1 waiting for signatures · 0 completed today · 2 ended today · 1 in a status not recognized',
    );
    const fake = makeTray();
    expect(item(fake, 'ended')).toBeUndefined();
    expect(item(fake, 'unknown-status')).toBeUndefined();
    counts = { sending: 0, waiting: 1, completedToday: 0, endedToday: 2, unknownStatus: 1 };
    tray?.refresh();
    expect(item(fake, 'ended')?.label).toBe('Ended without signing today: 2');
    expect(item(fake, 'unknown-status')?.label).toBe('Status not recognized: 1');
  });

  it('goes away when destroyed', () => {
    const fake = makeTray();
    tray?.destroy();
    expect(fake.destroyed).toBe(true);
  });
});

/** Every label of the tray's menu, by item id. */
const labels = (fake: FakeTray) =>
  Object.fromEntries(menuOf(fake).items.flatMap((entry) => (entry.id ? [[entry.id, entry.label]] : [])));

describe('the tray in the desk’s language', () => {
  const ONE = { sending: 1, waiting: 1, completedToday: 1, endedToday: 1, unknownStatus: 1 };
  const TWO = { sending: 2, waiting: 2, completedToday: 2, endedToday: 2, unknownStatus: 2 };

  it.each([
    {
      language: 'fr' as const,
      name: 'French',
      plurals: '1 envoi, 2 envois',
      one: {
        tooltip:
          'Signing Batch Desk — 1 envoi en cours · 1 en attente de signatures · 1 terminé aujourd’hui · 1 terminé sans signature aujourd’hui · 1 dans un statut non reconnu',
        title: '1 envoi · 1 en attente · 1 terminé',
      },
      two: {
        tooltip:
          'Signing Batch Desk — 2 envois en cours · 2 en attente de signatures · 2 terminés aujourd’hui · 2 terminés sans signature aujourd’hui · 2 dans un statut non reconnu',
        title: '2 envois · 2 en attente · 2 terminés',
      },
      menu: {
        open: 'Ouvrir Signing Batch Desk',
        sending: 'En cours d’envoi\u00a0: 2',
        waiting: 'En attente de signatures\u00a0: 2',
        completed: 'Terminés aujourd’hui\u00a0: 2',
        ended: 'Terminés sans signature aujourd’hui\u00a0: 2',
        'unknown-status': 'Statut non reconnu\u00a0: 2',
        'pause-tracking': 'Suspendre le suivi',
        'start-at-login': 'Lancer à l’ouverture de session',
        quit: 'Quitter',
      },
      pausedSuffix: / \(suivi suspendu\)$/,
    },
    {
      language: 'de' as const,
      name: 'German',
      plurals: '1 wird gesendet, 2 werden gesendet',
      one: {
        tooltip:
          'Signing Batch Desk — 1 wird gesendet · 1 wartet auf Unterschriften · 1 heute abgeschlossen · 1 heute ohne Unterschrift beendet · 1 mit nicht erkanntem Status',
        title: '1 wird gesendet · 1 wartet · 1 fertig',
      },
      two: {
        tooltip:
          'Signing Batch Desk — 2 werden gesendet · 2 warten auf Unterschriften · 2 heute abgeschlossen · 2 heute ohne Unterschrift beendet · 2 mit nicht erkanntem Status',
        title: '2 werden gesendet · 2 warten · 2 fertig',
      },
      menu: {
        open: 'Signing Batch Desk öffnen',
        sending: 'Wird gesendet: 2',
        waiting: 'Warten auf Unterschriften: 2',
        completed: 'Heute abgeschlossen: 2',
        ended: 'Heute ohne Unterschrift beendet: 2',
        'unknown-status': 'Status nicht erkannt: 2',
        'pause-tracking': 'Verfolgung anhalten',
        'start-at-login': 'Bei der Anmeldung starten',
        quit: 'Beenden',
      },
      pausedSuffix: / \(Verfolgung angehalten\)$/,
    },
  ])('says its counts in $name, each with its plural: $plurals', (expected) => {
    language = expected.language;
    counts = ONE;
    const fake = makeTray({ isEnabled: () => false, setEnabled: vi.fn() });
    expect(fake.tooltip).toBe(expected.one.tooltip);
    expect(fake.title).toBe(expected.one.title);
    counts = TWO;
    tray?.refresh();
    expect(fake.tooltip).toBe(expected.two.tooltip);
    expect(fake.title).toBe(expected.two.title);
    expect(labels(fake)).toEqual(expected.menu);
    menuOf(fake).click('pause-tracking');
    expect(fake.tooltip).toMatch(expected.pausedSuffix);
  });

  it('speaks the language of the moment at each refresh', () => {
    language = 'fr';
    const fake = makeTray();
    expect(fake.tooltip).toContain('2 envois en cours');
    language = 'de';
    tray?.refresh();
    expect(fake.tooltip).toContain('2 werden gesendet');
    expect(item(fake, 'quit')?.label).toBe('Beenden');
  });

  it('words the counts with the locale’s numbers', () => {
    const big = { sending: 1200, waiting: 0, completedToday: 0, ...QUIET };
    expect(describeCounts(big, createTranslator('fr').t)).toMatch(
      /^1\u202f200 envois en cours · 0 en attente/,
    );
    expect(describeCounts(big, createTranslator('de').t)).toMatch(/^1\.200 werden gesendet · 0 warten/);
  });
});

describe('the login item', () => {
  it('uses the OS login items on macOS and Windows, with the hidden flag', () => {
    for (const platform of ['darwin', 'win32'] as const) {
      const loginItem = systemLoginItem(asElectron<App>(app), platform);
      expect(loginItem?.isEnabled()).toBe(false);
      loginItem?.setEnabled(true);
      expect(app.setLoginItemSettings).toHaveBeenLastCalledWith({
        openAtLogin: true,
        args: [START_HIDDEN_FLAG],
      });
      expect(loginItem?.isEnabled()).toBe(true);
      loginItem?.setEnabled(false);
    }
  });

  it('writes a freedesktop autostart entry on Linux that starts the app hidden, and removes it', () => {
    const configDir = mkdtempSync(join(tmpdir(), 'desk-autostart-'));
    try {
      const env = { XDG_CONFIG_HOME: configDir, APPIMAGE: '/home/ana/Apps/Signing "Desk" $1.AppImage' };
      const loginItem = systemLoginItem(asElectron<App>(app), 'linux', env);
      // Named after the app id the installers use.
      expect(
        readFileSync(join(import.meta.dirname, '..', '..', '..', 'electron-builder.yml'), 'utf8'),
      ).toContain(`appId: ${AUTOSTART_ID}\n`);
      const entry = join(configDir, 'autostart', `${AUTOSTART_ID}.desktop`);
      expect(loginItem?.isEnabled()).toBe(false);
      loginItem?.setEnabled(true);
      expect(loginItem?.isEnabled()).toBe(true);
      const text = readFileSync(entry, 'utf8');
      expect(text).toContain('[Desktop Entry]\nType=Application\n');
      // Quoted for Exec (`\"`, `\$`), then each backslash escaped as a key file's string value asks.
      expect(text).toContain('Exec="/home/ana/Apps/Signing \\\\"Desk\\\\" \\\\$1.AppImage" --hidden\n');
      expect(launchedAtLogin(asElectron<App>(app), ['desk', START_HIDDEN_FLAG], 'linux')).toBe(true);
      loginItem?.setEnabled(false);
      expect(existsSync(entry)).toBe(false);
      expect(loginItem?.isEnabled()).toBe(false);
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  it('recognizes a launch at login', () => {
    expect(launchedAtLogin(asElectron<App>(app), ['desk', START_HIDDEN_FLAG], 'win32')).toBe(true);
    expect(launchedAtLogin(asElectron<App>(app), ['desk'], 'win32')).toBe(false);
    app.loginItem.wasOpenedAtLogin = true;
    expect(launchedAtLogin(asElectron<App>(app), ['desk'], 'darwin')).toBe(true);
    expect(launchedAtLogin(asElectron<App>(app), ['desk'], 'linux')).toBe(false);
  });
});
