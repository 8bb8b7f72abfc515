/**
 * The language main speaks for the call in progress, where the words are made deep inside a
 * check (a manifest's problems, a refused link): the handler runs the call `speaking` the
 * person's language, and the check asks `words()`. Outside any such call (the command line,
 * events stored in a batch) the words are English.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { englishWords, type Translator } from '../../shared/i18n/translator';

const current = new AsyncLocalStorage<Translator['t']>();

/** Runs `call` with `t` as the language of every message it makes. */
export function speaking<T>(t: Translator['t'], call: () => T): T {
  return current.run(t, call);
}

/** The language of the call in progress, or English. */
export function words(): Translator['t'] {
  return current.getStore() ?? englishWords();
}
