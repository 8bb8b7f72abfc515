/**
 * The service's wire format (spec §2, §4, §7) as zod schemas. Outgoing bodies are strict about
 * the service's rules; incoming answers are loose objects, so unknown fields parse and are
 * kept, and status values stay an open set (README "Answers the spec does not pin down").
 */
import { z } from 'zod';
import {
  LOCALE_PATTERN,
  MAX_EMAIL_LENGTH,
  MAX_NAME_LENGTH,
  MAX_ROLE_LENGTH,
  MIN_SIGNING_ORDER,
  UPLOAD_ID_PREFIX,
} from './limits';

/**
 * A digest as the service reports it. Kept as given (the spec says "SHA-256 digest", not its
 * encoding); the engine compares an upload's digest with the local hex one and fails loudly
 * when they differ.
 */
const digest = z.string().min(1);
/**
 * A timestamp the service reports (ISO 8601 UTC in the spec). Kept as the service wrote it, so
 * an unexpected format (no seconds, `+0000`, epoch seconds) never makes the whole answer
 * unreadable: the display parses it when it can and shows it as is otherwise. Null or absent
 * until the event happens.
 */
const timestamp = z
  .union([z.string(), z.number().transform(String)])
  .nullable()
  .optional()
  .catch(undefined);
/**
 * A document revision (spec §2.3: integer), also when written as a numeric string; anything
 * else (null, "first", 1.5) is unknown rather than a number made up by coercion.
 */
const revision = z
  .union([z.number().int(), z.string().regex(/^\d+$/).transform(Number)])
  .optional()
  .catch(undefined);
/** A positive number of seconds or hours, also when written as a numeric string; else unknown. */
const lifetime = z.coerce.number().positive().optional().catch(undefined);

export const uploadIdSchema = z
  .string()
  .startsWith(UPLOAD_ID_PREFIX, `must begin with ${UPLOAD_ID_PREFIX}`)
  .min(UPLOAD_ID_PREFIX.length + 1, 'must not be empty after the prefix');

export const participantTypeSchema = z.enum(['signer', 'observer']);

/** A participant as the client sends it (spec §2.4). */
export const participantSchema = z.object({
  participant_type: participantTypeSchema,
  is_internal: z.boolean().optional(),
  role: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(MAX_ROLE_LENGTH, `must be at most ${MAX_ROLE_LENGTH} characters`),
  name: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`),
  email: z
    .string()
    .max(MAX_EMAIL_LENGTH, `must be at most ${MAX_EMAIL_LENGTH} characters`)
    .pipe(z.email('must be a valid e-mail address')),
  signing_order: z
    .number()
    .int('must be a whole number')
    .min(MIN_SIGNING_ORDER, `must be at least ${MIN_SIGNING_ORDER}`)
    .optional(),
});
export type Participant = z.infer<typeof participantSchema>;

export const localeSchema = z.string().regex(LOCALE_PATTERN, 'must look like language-REGION, e.g. fr-FR');

/** Body of `POST /api/v1/signing-requests` (spec §4.3). */
export const createSigningRequestBodySchema = z.object({
  external_reference: z.string().trim().min(1, 'is required'),
  transaction_type: z.string().optional(),
  document: z.object({ upload_id: uploadIdSchema }),
  recipients: z.array(participantSchema).min(1, 'needs at least one recipient'),
  signing: z
    .object({
      enforce_order: z.boolean().optional(),
      owner: z.object({ must_sign: z.boolean().optional() }).optional(),
    })
    .optional(),
  ceremony: z.object({ mode: z.string().optional(), meeting_provider: z.string().optional() }).optional(),
  evidence_level: z.string().optional(),
  locale: localeSchema.optional(),
});
export type CreateSigningRequestBody = z.infer<typeof createSigningRequestBodySchema>;

export const tokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  /** Other response fields are "not shown": an unreadable lifetime means "renew on 401". */
  expires_in: lifetime,
  scope: z.string().optional(),
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

/** Upload (spec §2.1). */
export const uploadSchema = z.looseObject({
  upload_id: uploadIdSchema,
  filename: z.string(),
  sha256: digest,
  size_bytes: z.number().int().nonnegative(),
  /** Unreadable or absent: the upload is used at once, and uploaded again rather than kept. */
  expires_in_hours: lifetime,
});
export type Upload = z.infer<typeof uploadSchema>;

/**
 * Answer of a creation (spec §4.3). Read leniently: any 2xx is success, so a field that is
 * absent or unreadable is unknown, never an error (the client reports "created, id unknown").
 */
export const createSigningRequestResponseSchema = z.looseObject({
  id: z.string().min(1).optional().catch(undefined),
  external_reference: z.string().optional().catch(undefined),
  transaction_type: z.string().nullable().optional().catch(undefined),
  submission_status: z.string().optional().catch(undefined),
  idempotent_replay: z.boolean().optional().catch(undefined),
});
export type CreateSigningRequestResponse = z.infer<typeof createSigningRequestResponseSchema>;

/** A participant as the service returns it (spec §4.5); output fields are read leniently. */
export const createdParticipantSchema = z.looseObject({
  participant_id: z.string().min(1).optional().catch(undefined),
  participant_type: z.string().optional().catch(undefined),
  is_internal: z.boolean().optional().catch(undefined),
  role: z.string().optional().catch(undefined),
  name: z.string().optional().catch(undefined),
  email: z.string().optional().catch(undefined),
  signing_order: z.number().int().nullable().optional().catch(undefined),
});

/** Answer of adding a participant (spec §4.5), read leniently like a creation's. */
export const addParticipantResponseSchema = z.looseObject({
  id: z.string().min(1).optional().catch(undefined),
  participant: createdParticipantSchema.optional().catch(undefined),
});
export type AddParticipantResponse = z.infer<typeof addParticipantResponseSchema>;

/**
 * Answer of a preparation (spec §4.6), read leniently: without `document.revision` or
 * `document.sha256` the client reads the request to learn them.
 */
export const prepareResponseSchema = z.looseObject({
  id: z.string().min(1).optional().catch(undefined),
  status: z.string().optional().catch(undefined),
  document: z
    .looseObject({
      revision,
      sha256: digest.optional().catch(undefined),
    })
    .optional()
    .catch(undefined),
});
export type PrepareResponse = z.infer<typeof prepareResponseSchema>;

/** Signing request as read by `GET /api/v1/signing-requests/{id}` (spec §2.2, §4.4). */
export const signingRequestSchema = z.looseObject({
  id: z.string().min(1),
  external_reference: z.string().optional(),
  transaction_type: z.string().nullable().optional(),
  submission_status: z.string().optional(),
  status: z.string(),
  document: z
    .looseObject({
      status: z.string().optional(),
      revision,
      sha256: digest.optional().catch(undefined),
    })
    .nullable()
    .optional(),
  /** Evidence counts as ready only when the service says `ready: true`. */
  evidence: z
    .looseObject({ ready: z.boolean().catch(false) })
    .nullable()
    .optional()
    .catch(undefined),
  prepared_at: timestamp,
  opened_at: timestamp,
  finalized_at: timestamp,
});
export type SigningRequest = z.infer<typeof signingRequestSchema>;

/** Widget session (spec §2.5). The URL is a secret: main wraps it before it goes anywhere. */
export const widgetSessionSchema = z.looseObject({
  id: z.string().min(1),
  widget_url: z.url({ protocol: /^https?$/ }),
  expires_in_seconds: z.number().int().positive(),
});
export type WidgetSession = z.infer<typeof widgetSessionSchema>;

/** Error body of the API (spec §7). */
export const serviceErrorBodySchema = z.looseObject({
  error: z.looseObject({ code: z.string().min(1), message: z.string().optional() }),
});

/** Error body of the token endpoint, which the spec does not show; OAuth 2.0 (RFC 6749 §5.2) is the likely shape. */
export const oauthErrorBodySchema = z.looseObject({
  error: z.string().min(1),
  error_description: z.string().optional(),
});
