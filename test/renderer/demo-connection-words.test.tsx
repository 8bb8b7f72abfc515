import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { ConnectionsScreen } from '../../renderer/src/screens/connections-screen';
import { createTranslator, type Translator } from '../../shared/i18n/translator';
import type { ProfileView } from '../../shared/ipc/views';
import type * as StoreModule from '../../renderer/src/state/store';

/**
 * The demo connection on the Connections screen, as a person reads it: named in their language,
 * never offered an edit that can only be refused (its name is the demo's own).
 */

/** The store's state the screen reads, set by each test (a static drawing reads the store's first state). */
const shown = vi.hoisted(() => ({ state: {} as Record<string, unknown> }));
vi.mock('../../renderer/src/state/store', async (original) => {
  const real = await original<typeof StoreModule>();
  const useDesk = Object.assign((selector: (state: unknown) => unknown) => selector(shown.state), {
    getState: () => shown.state,
  });
  return { ...real, useDesk };
});

const DEMO: ProfileView = {
  name: 'Demo (built-in simulator)',
  baseUrl: 'http://127.0.0.1:4010',
  clientId: 'demo-desk',
  hasSecret: true,
  active: true,
  demo: true,
};
const PRODUCTION: ProfileView = {
  name: 'Production',
  baseUrl: 'https://sign.example.com',
  clientId: 'desk',
  hasSecret: true,
  active: false,
  demo: false,
};

/** The screen drawn once, in `language`, with the demo and one connection of the person's. */
function screenText(language: Translator['language']): string {
  shown.state = {
    translator: createTranslator(language),
    profiles: [DEMO, PRODUCTION],
    keychainWaiting: false,
    actions: {},
  };
  return renderToStaticMarkup(<ConnectionsScreen />)
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');
}

describe('the demo connection', () => {
  it('offers Edit only for the person’s own connections', () => {
    const text = screenText('en');
    expect(text).toContain('Demo (built-in simulator)');
    expect(text.match(/ Edit /g)).toHaveLength(1);
    expect(screenText('fr')).toContain('Démo (simulateur intégré)');
  });
});
