/**
 * A connection's name as the person reads it. The demo connection's name is a fixed key (the
 * desk finds, activates and tests it by that name, and a restart must find it again), so it is
 * never shown as stored: it is said in the person's language. Any other connection is shown as
 * its owner named it.
 */
import type { Translator } from './translator';

export function connectionLabel(
  connection: { readonly name: string; readonly demo?: boolean },
  t: Translator['t'],
): string {
  return connection.demo === true ? t('connections.demoName') : connection.name;
}
