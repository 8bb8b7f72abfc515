/**
 * One participant's problem in the person's words, from the service's schema issue: the same
 * sentence in the editor (as the user types) and in the table, review and report (main's
 * readiness check), never the schema's English.
 */
import type { z } from 'zod';
import type { MessageId } from './catalog';
import type { Translator } from './translator';

export type ParticipantField = 'role' | 'name' | 'email' | 'signingOrder';

/** The field of a participant's schema key; its name is a select in each language's catalog. */
export const FIELD_OF: Readonly<Record<string, ParticipantField>> = {
  role: 'role',
  name: 'name',
  email: 'email',
  signing_order: 'signingOrder',
};

/** The problem of one schema issue, as a message of the catalog. */
export function participantProblem(
  field: ParticipantField | undefined,
  issue: z.core.$ZodIssue,
  t: Translator['t'],
): string {
  const values = { field: field ?? 'other' };
  const rule = (id: MessageId, extra: Record<string, number> = {}) => t(id, { ...values, ...extra });
  switch (issue.code) {
    case 'too_small':
      return issue.origin === 'number'
        ? rule('common.fieldAtLeast', { minimum: Number(issue.minimum) })
        : rule('common.fieldRequired');
    case 'too_big':
      return rule('common.fieldAtMost', { maximum: Number(issue.maximum) });
    case 'invalid_format':
      return rule('common.fieldEmail');
    case 'invalid_type':
      return rule('common.fieldWholeNumber');
    default:
      return field === 'signingOrder' ? rule('common.fieldWholeNumber') : rule('common.fieldInvalid');
  }
}
