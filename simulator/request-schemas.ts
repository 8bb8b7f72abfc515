import { z } from 'zod';

/**
 * The bodies the API accepts (spec §2.4, §4.3), with the required fields this simulator
 * chose where the spec says "not shown". Unknown fields are ignored. Every message names the
 * offending field, e.g. `recipients[1].email: must be a valid e-mail address`.
 */

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** language-REGION, the region as two letters or a UN M.49 number (BCP 47), e.g. fr-FR, es-419. */
const LOCALE_PATTERN = /^[a-z]{2,3}-(?:[A-Z]{2}|\d{3})$/;

/** A type error that says "is required" when the field is missing. */
function typed(expected: string) {
  return {
    error: (issue: { input?: unknown }) =>
      issue.input === undefined ? 'is required' : `must be ${expected}`,
  };
}

function boundedString(maxLength: number) {
  return z
    .string(typed('a string'))
    .min(1, 'must not be empty')
    .max(maxLength, `must be at most ${maxLength} characters`);
}

export const participantSchema = z.object(
  {
    participant_type: z.enum(['signer', 'observer'], typed('"signer" or "observer"')),
    is_internal: z.boolean(typed('a boolean')).optional(),
    role: boundedString(100),
    name: boundedString(255),
    email: z
      .string(typed('a string'))
      .max(254, 'must be at most 254 characters')
      .regex(EMAIL_PATTERN, 'must be a valid e-mail address'),
    signing_order: z.int(typed('an integer')).min(1, 'must be at least 1').optional(),
  },
  typed('an object'),
);
export type ParticipantInput = z.infer<typeof participantSchema>;

const optionalString = z.string(typed('a string')).optional();
const optionalBoolean = z.boolean(typed('a boolean')).optional();

export const createSigningRequestSchema = z.object(
  {
    external_reference: boundedString(255),
    transaction_type: optionalString,
    document: z.object(
      {
        upload_id: z
          .string(typed('a string'))
          .regex(/^upl_./, 'must be an upload identifier beginning with upl_'),
      },
      typed('an object'),
    ),
    recipients: z.array(participantSchema, typed('an array')).min(1, 'must list at least one recipient'),
    signing: z
      .object(
        {
          enforce_order: optionalBoolean,
          owner: z.object({ must_sign: optionalBoolean }, typed('an object')).optional(),
        },
        typed('an object'),
      )
      .optional(),
    ceremony: z
      .object({ mode: optionalString, meeting_provider: optionalString }, typed('an object'))
      .optional(),
    evidence_level: optionalString,
    locale: z
      .string(typed('a string'))
      .regex(LOCALE_PATTERN, 'must be a locale tag language-REGION, e.g. fr-FR')
      .optional(),
  },
  typed('a JSON object'),
);
export type CreateSigningRequestInput = z.infer<typeof createSigningRequestSchema>;

/** `recipients[1].email`, or `body` for the root. */
function fieldPath(path: readonly PropertyKey[], prefix: string): string {
  let text = prefix;
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text === '' ? 'body' : text;
}

/** One message for a failed parse: every issue as `field: problem`, joined by "; ". */
export function describeIssues(error: z.ZodError, prefix = ''): string {
  return error.issues.map((issue) => `${fieldPath(issue.path, prefix)}: ${issue.message}`).join('; ');
}

/** The first recipient whose e-mail repeats an earlier one (case-insensitive), as a message. */
export function duplicateEmailProblem(recipients: readonly ParticipantInput[]): string | undefined {
  const firstIndexByEmail = new Map<string, number>();
  for (const [index, recipient] of recipients.entries()) {
    const email = recipient.email.toLowerCase();
    const firstIndex = firstIndexByEmail.get(email);
    if (firstIndex !== undefined) {
      return `recipients[${index}].email: duplicates recipients[${firstIndex}].email`;
    }
    firstIndexByEmail.set(email, index);
  }
  return undefined;
}
