import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, describe, expect, it } from 'vitest';
import { ConnectionPill } from '../../renderer/src/components/connection-pill';
import { connectionUnavailable, needsConnection } from '../../renderer/src/state/connection-status';
import { useDesk } from '../../renderer/src/state/store';
import type { Language } from '../../shared/i18n/languages';
import { createTranslator } from '../../shared/i18n/translator';
import type { ProfileView } from '../../shared/ipc/views';

/**
 * The top bar stays true after a connection is deleted (found by an outside tester: it said "No
 * connection yet" while two existed): the active one, or none active among those saved with the
 * way to choose one, or none at all. And a batch whose own connection is gone has its actions say
 * why instead of failing. Drawn once, as the server draws it, from the store's first state.
 */
const FIRST = useDesk.getInitialState();
const FIRST_PROFILES = FIRST.profiles;
const FIRST_TRANSLATOR = FIRST.translator;
afterAll(() => Object.assign(FIRST, { profiles: FIRST_PROFILES, translator: FIRST_TRANSLATOR }));

function profile(name: string, active = false): ProfileView {
  return {
    name,
    baseUrl: 'https://sign.example.com',
    clientId: 'desk',
    hasSecret: true,
    active,
    demo: false,
  };
}

function pill(profiles: readonly ProfileView[], language: Language = 'en'): string {
  Object.assign(FIRST, { profiles, translator: createTranslator(language) });
  return renderToStaticMarkup(<ConnectionPill />)
    .replace(/<[^>]+>/g, (tag) => (tag.startsWith('<button') ? '[button]' : ''))
    .replace(/&#x27;/g, "'");
}

describe('the top bar’s connection', () => {
  it('names the active connection', () => {
    expect(pill([profile('Sandbox'), profile('Production', true)])).toBe('Connection: Production');
  });

  it('says none is active while connections exist, as a way to Connections, in each language', () => {
    expect(pill([profile('Sandbox'), profile('Production')])).toBe(
      '[button]No active connection (2 saved): choose one',
    );
    expect(pill([profile('Sandbox'), profile('Production')], 'fr')).toBe(
      '[button]Aucune connexion active (2 enregistrées)\u00a0: en choisir une',
    );
    expect(pill([profile('Sandbox'), profile('Production')], 'de')).toBe(
      '[button]Keine aktive Verbindung (2 gespeichert): eine auswählen',
    );
  });

  it('names the active demo connection in the person’s language, not by its stored key', () => {
    const demo = { ...profile('Demo (built-in simulator)', true), demo: true };
    expect(pill([demo], 'fr')).toBe('Connexion\u00a0: Démo (simulateur intégré)');
    expect(pill([demo], 'de')).toBe('Verbindung: Demo (eingebauter Simulator)');
  });

  it('says there is none yet only when there is none', () => {
    expect(pill([])).toBe('No connection yet');
  });
});

describe('the actions of a batch whose own connection is gone', () => {
  const bound = { baseUrl: 'https://sign.example.com', clientId: 'desk' };
  it('are marked unavailable, described by the reason, and kept in the tab order', () => {
    const gone = { id: 'b1', connection: bound, connectionProblem: 'This batch was sent with…' };
    expect(connectionUnavailable(gone)).toBe(true);
    expect(needsConnection('b1', true)).toEqual({
      'aria-disabled': true,
      'aria-describedby': 'connection-problem-b1',
    });
  });

  it('stay available when the connection can be used, or for a batch not sent yet (it takes the active one)', () => {
    expect(connectionUnavailable({ connection: bound })).toBe(false);
    expect(connectionUnavailable({ connectionProblem: 'An earlier version’s batch…' })).toBe(false);
    expect(needsConnection('b1', false)).toEqual({});
  });
});
