/**
 * A connection's name as the person reads it. The demo connection's name is a fixed key (the
 * desk finds, activates and tests it by that name, and a restart must find it again), so it is
 * never shown as stored: it is said in the person's language. Any other connection is shown as
 * its owner named it.
 */
import type { Translator } from './translator';

/**
 * The question asked before a connection is deleted, naming it as shown. The demo connection has
 * no secret saved (its simulator's is in memory), and comes back with "Use the demo connection".
 */
export function deleteQuestion(
  connection: { readonly name: string; readonly demo?: boolean },
  t: Translator['t'],
): string {
  const name = connectionLabel(connection, t);
  return t(connection.demo === true ? 'connections.confirmDeleteDemo' : 'connections.confirmDelete', {
    name,
  });
}

export function connectionLabel(
  connection: { readonly name: string; readonly demo?: boolean },
  t: Translator['t'],
): string {
  return connection.demo === true ? t('connections.demoName') : connection.name;
}
