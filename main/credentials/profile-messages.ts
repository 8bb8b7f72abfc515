/**
 * What the profile store says to a person, in the language of the call in progress (`words()`):
 * the app's handlers speak the person's language, the command line English.
 */
import type { MessageId } from '../../shared/i18n/catalog';
import type { MessageValues } from '../../shared/i18n/translator';
import { words } from '../base/words';
import type { NotSealedFor, SecretAddress } from './sealed-secret';

/** A schema check's message, worded when the check fails (not when the schema is made). */
export const said = (id: MessageId, values?: MessageValues) => ({ error: () => words()(id, values) });

/** An address as people read it: the service, and the client id. */
export function describeAddress(address: SecretAddress): string {
  return words()('connections.address', { baseUrl: address.baseUrl, clientId: address.clientId });
}

/** Why a profile's saved secret is not sent: none saved, or not saved for the profile's address. */
export type NotUsable = 'none' | NotSealedFor;

/** Why the saved secret of `profile` is not sent (`savedFor`: where it was saved for, when known), and what to do. */
export function secretNotUsableMessage(
  profile: SecretAddress & { readonly name: string },
  reason: NotUsable,
  savedFor?: SecretAddress,
): string {
  const t = words();
  const { name, baseUrl } = profile;
  const address = describeAddress(profile);
  if (reason === 'none') return t('connections.secretNone', { name });
  if (reason === 'unaddressed') return t('connections.secretUnaddressed', { name, baseUrl });
  return savedFor
    ? t('connections.secretOtherAddressFor', { name, address, savedFor: describeAddress(savedFor) })
    : t('connections.secretOtherAddress', { name, address });
}
