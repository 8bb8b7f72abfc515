/**
 * Recipients and signing options as the editor holds them (text fields), checked as the user
 * types with the service's own rules: the shared schemas that main also uses before sending.
 */
import type { SigningOptions } from '../../../shared/domain/batch';
import {
  FIELD_OF,
  participantProblem,
  type ParticipantField,
} from '../../../shared/i18n/participant-problems';
import { createTranslator, type Translator } from '../../../shared/i18n/translator';
import { localeSchema, participantSchema, type Participant } from '../../../shared/service/wire';

/** One participant in the editor: what the user typed, before it is a valid participant. */
export interface ParticipantDraft {
  readonly participantType: 'signer' | 'observer';
  readonly isInternal: boolean;
  readonly role: string;
  readonly name: string;
  readonly email: string;
  /** Empty when no order is given. */
  readonly signingOrder: string;
}

export type { ParticipantField };

export const EMPTY_PARTICIPANT: ParticipantDraft = {
  participantType: 'signer',
  isInternal: false,
  role: '',
  name: '',
  email: '',
  signingOrder: '',
};

/** The field's name in a problem ("{field} is required."): a select in each language's catalog. */
const FIELD_NAME: Readonly<Record<ParticipantField, string>> = {
  role: 'role',
  name: 'name',
  email: 'email',
  signingOrder: 'signingOrder',
};

/** Problems are worded in English unless a screen passes its language's `t`. */
const ENGLISH = createTranslator('en').t;

export function fromParticipant(participant: Participant): ParticipantDraft {
  return {
    participantType: participant.participant_type,
    isInternal: participant.is_internal === true,
    role: participant.role,
    name: participant.name,
    email: participant.email,
    signingOrder: participant.signing_order === undefined ? '' : String(participant.signing_order),
  };
}

/** The participant as the service receives it, before checking (an order that is not a number stays NaN). */
function candidateOf(draft: ParticipantDraft): Record<string, unknown> {
  const order = draft.signingOrder.trim();
  return {
    participant_type: draft.participantType,
    ...(draft.isInternal ? { is_internal: true } : {}),
    role: draft.role,
    name: draft.name,
    email: draft.email.trim(),
    ...(order === '' ? {} : { signing_order: /^-?\d+(\.\d+)?$/.test(order) ? Number(order) : Number.NaN }),
  };
}

/** What is wrong with each field, in plain words ("E-mail must be a valid e-mail address."). */
export function participantErrors(
  draft: ParticipantDraft,
  t: Translator['t'] = ENGLISH,
): Partial<Record<ParticipantField, string>> {
  const parsed = participantSchema.safeParse(candidateOf(draft));
  if (parsed.success) return {};
  const errors: Partial<Record<ParticipantField, string>> = {};
  for (const issue of parsed.error.issues) {
    const field = FIELD_OF[String(issue.path[0])];
    if (!field || errors[field]) continue;
    errors[field] = participantProblem(field, issue, t);
  }
  // Nothing typed yet is "required", as for the other fields, not "invalid".
  if (errors.email && draft.email.trim() === '')
    errors.email = t('common.fieldRequired', { field: FIELD_NAME.email });
  return errors;
}

/** The participant, or undefined while a field is invalid. */
export function toParticipant(draft: ParticipantDraft): Participant | undefined {
  const parsed = participantSchema.safeParse(candidateOf(draft));
  return parsed.success ? parsed.data : undefined;
}

/** Problems across a list: each e-mail address may appear once. */
export function duplicateEmails(drafts: readonly ParticipantDraft[], t: Translator['t'] = ENGLISH): string[] {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const draft of drafts) {
    const email = draft.email.trim().toLowerCase();
    if (email === '') continue;
    if (seen.has(email)) duplicates.add(email);
    seen.add(email);
  }
  return [...duplicates].map((email) => t('common.duplicateEmail', { email }));
}

/**
 * True when an editor's participants and options can be saved: every participant valid, each
 * e-mail address once, the locale well formed.
 */
export function canSave(drafts: readonly ParticipantDraft[], options: OptionsDraft): boolean {
  return (
    drafts.every((draft) => toParticipant(draft) !== undefined) &&
    duplicateEmails(drafts).length === 0 &&
    localeError(options.locale) === undefined
  );
}

/** The participants of the drafts that are valid, in order (all of them once `canSave` holds). */
export function toParticipants(drafts: readonly ParticipantDraft[]): Participant[] {
  return drafts.map(toParticipant).filter((participant) => participant !== undefined);
}

/** Signing options as the editor holds them: text and tri-state choices ("" = not set). */
export interface OptionsDraft {
  readonly transactionType: string;
  readonly enforceOrder: '' | 'yes' | 'no';
  readonly ownerMustSign: '' | 'yes' | 'no';
  readonly ceremonyMode: string;
  readonly meetingProvider: string;
  readonly evidenceLevel: string;
  readonly locale: string;
}

function choiceOf(value: boolean | undefined): OptionsDraft['enforceOrder'] {
  return value === undefined ? '' : value ? 'yes' : 'no';
}

export function fromOptions(options: SigningOptions): OptionsDraft {
  return {
    transactionType: options.transactionType ?? '',
    enforceOrder: choiceOf(options.enforceOrder),
    ownerMustSign: choiceOf(options.ownerMustSign),
    ceremonyMode: options.ceremonyMode ?? '',
    meetingProvider: options.meetingProvider ?? '',
    evidenceLevel: options.evidenceLevel ?? '',
    locale: options.locale ?? '',
  };
}

/** The locale's problem, if any (spec §4.3: language-REGION). */
export function localeError(locale: string, t: Translator['t'] = ENGLISH): string | undefined {
  const trimmed = locale.trim();
  if (trimmed === '') return undefined;
  return localeSchema.safeParse(trimmed).success ? undefined : t('common.localeFormat');
}

/** The options to store: empty fields are left unset (the batch default, or nothing, applies). */
export function toOptions(draft: OptionsDraft): SigningOptions {
  const text = (value: string) => (value.trim() === '' ? undefined : value.trim());
  const choice = (value: OptionsDraft['enforceOrder']) => (value === '' ? undefined : value === 'yes');
  const options: SigningOptions = {
    transactionType: text(draft.transactionType),
    enforceOrder: choice(draft.enforceOrder),
    ownerMustSign: choice(draft.ownerMustSign),
    ceremonyMode: text(draft.ceremonyMode),
    meetingProvider: text(draft.meetingProvider),
    evidenceLevel: text(draft.evidenceLevel),
    locale: text(draft.locale),
  };
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
