/**
 * The language main speaks for the call in progress, where the words are made deep inside a
 * check (a manifest's problems, a refused link): the handler runs the call speaking the
 * person's language, and the check asks `words()`. Outside any such call (the command line,
 * events stored in a batch) the words are English.
 *
 * Whatever a call starts runs on in its context after the call has answered: a timer, a promise
 * chain, a poller's rounds, an engine's run, a retry a minute later. Such work must not keep the
 * language the call was made in (the person may have changed it since): the desk's start speaks
 * `speakingLive`, the desk's language as it is when each word is made. A call that answers speaks
 * `speakingCall`: its answer in one language, taken when it starts, and the work it leaves
 * running live once it has answered.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { englishWords, type Translator } from '../../shared/i18n/translator';

/** Where words come from: the language as it is at the moment a word is made. */
type Language = () => Translator['t'];

const current = new AsyncLocalStorage<Language>();

/**
 * Runs `call` with `t` as the language of every message it makes, and of every message made by
 * work it starts (a timer fires in `t` however late): for a call that is over once it answers.
 */
export function speaking<T>(t: Translator['t'], call: () => T): T {
  return current.run(() => t, call);
}

/**
 * Runs `call` speaking `language()` as it is whenever a message is made, in the call and in
 * the work it starts and that outlives it: a change of language reaches a retry started before.
 */
export function speakingLive<T>(language: Language, call: () => T): T {
  return current.run(language, call);
}

/**
 * Runs a call that answers: every word of its answer in the language `language()` gives when it
 * starts (an answer never mixes two, however long a keychain prompt holds it), and what it leaves
 * running, once it has answered, in the language of the moment.
 */
export function speakingCall<T>(language: Language, call: () => Promise<T>): Promise<T> {
  const atStart = language();
  let answered = false;
  const result = current.run(() => (answered ? language() : atStart), call);
  const over = () => {
    answered = true;
  };
  result.then(over, over);
  return result;
}

/** The language of the call in progress, or English. */
export function words(): Translator['t'] {
  return current.getStore()?.() ?? englishWords();
}
