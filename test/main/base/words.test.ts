/**
 * The language main speaks (main/base/words.ts): a call's, and that of the work the call leaves
 * running. A timer set in a call fires after the call has answered, in the call's context (Node
 * carries it): when the person changed the language meanwhile, it speaks the new one.
 */
import { describe, expect, it } from 'vitest';
import { speaking, speakingCall, speakingLive, words } from '../../../main/base/words';
import { systemClock } from '../../../main/time/clock';
import { createTranslator, type Translator } from '../../../shared/i18n/translator';

/** What `words()` says when a real timer set now fires, a few milliseconds later. */
function saidByTimer(): Promise<string> {
  return new Promise((resolve) => systemClock.timer(5, () => resolve(words()('errors.batchNotFound'))));
}

describe('the language of work a call leaves running', () => {
  it('a timer set in a call speaking the desk’s language speaks it as it is when it fires', async () => {
    let desk: Translator = createTranslator('fr');
    const fired = speakingLive(() => desk.t, saidByTimer);
    desk = createTranslator('de');
    expect(await fired).toBe('Dieser Stapel existiert nicht mehr.');
  });

  it('a call speaking a language it was given, and the command line, keep theirs', async () => {
    expect(await speaking(createTranslator('fr').t, saidByTimer)).toBe('Ce lot n’existe plus.');
    expect(await saidByTimer()).toBe('This batch no longer exists.');
  });
});

describe('the language of a call that answers', () => {
  it('its answer is in one language, taken when it starts, however long it waits; what it leaves running speaks the language of the moment', async () => {
    let desk: Translator = createTranslator('fr');
    let later: Promise<string> | undefined;
    let keychainAnswers: () => void = () => undefined;
    const keychain = new Promise<void>((resolve) => (keychainAnswers = resolve));
    const answer = speakingCall(
      () => desk.t,
      async () => {
        const before = words()('errors.batchNotFound');
        await keychain; // an unlock prompt holds the call while the person switches language
        const after = words()('errors.batchNotFound');
        later = saidByTimer(); // a retry the call leaves running, firing after it has answered
        return [before, after];
      },
    );
    desk = createTranslator('de');
    keychainAnswers();
    expect(await answer).toEqual(['Ce lot n’existe plus.', 'Ce lot n’existe plus.']);
    expect(await later).toBe('Dieser Stapel existiert nicht mehr.');
  });
});
