/** The columns a manifest knows (README "Manifest format"), and what each one fills in. */
import type { SigningOptions } from '../../shared/domain/batch';

export const REQUIRED_COLUMNS = [
  'document',
  'external_reference',
  'participant_type',
  'role',
  'name',
  'email',
] as const;

/** The columns of one document: every row of the document must agree on them. */
export const DOCUMENT_COLUMNS = [
  'transaction_type',
  'enforce_order',
  'owner_must_sign',
  'ceremony_mode',
  'meeting_provider',
  'evidence_level',
  'locale',
] as const;

/** Every column a manifest knows, in the order a message lists them. */
export const KNOWN_COLUMNS: readonly string[] = [
  'document',
  'external_reference',
  'transaction_type',
  'participant_type',
  'role',
  'name',
  'email',
  'signing_order',
  'is_internal',
  // Then the document's other columns, in their order.
  ...DOCUMENT_COLUMNS.filter((column) => column !== 'transaction_type'),
];

export type DocumentColumn = (typeof DOCUMENT_COLUMNS)[number];

/** The signing option each per-document column sets. */
export const OPTION_KEYS: Readonly<Record<DocumentColumn, keyof SigningOptions>> = {
  transaction_type: 'transactionType',
  enforce_order: 'enforceOrder',
  owner_must_sign: 'ownerMustSign',
  ceremony_mode: 'ceremonyMode',
  meeting_provider: 'meetingProvider',
  evidence_level: 'evidenceLevel',
  locale: 'locale',
};

export const BOOLEAN_COLUMNS: ReadonlySet<string> = new Set([
  'is_internal',
  'enforce_order',
  'owner_must_sign',
]);
