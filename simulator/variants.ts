import { createSeededRandom } from './seeded-random';

/**
 * Service variants: every answer the spec leaves open ("not shown"), played one way or another.
 * A variant is chosen per simulator (`startSimulator({ variant })`); a suite runs across
 * `variantsForSuite()` so that the client is proven against every service the spec allows,
 * not only against the reference choices.
 */

/** Success status codes a variant may answer; each list is every value the simulator plays. */
type Create = 200 | 201 | 202 | 203;
type Ceremony = 200 | 201 | 202 | 203 | 204;

/** One service the spec allows: the simulator's answers wherever the spec says "not shown". */
export interface ServiceVariant {
  readonly name: string;
  /** Success status per operation; 'empty' bodies only where allowed below. */
  readonly success: {
    readonly upload: Create;
    readonly create: Create;
    /** A replay answers the same status as a creation in this variant ('same'), or 200. */
    readonly replay: 'same' | 200;
    readonly participant: Ceremony;
    readonly prepare: Ceremony;
    readonly widget: 200 | 201;
    readonly read: 200 | 203;
  };
  /** Add-participant and prepare answer with no body at all (Content-Length 0; with 204 always). */
  readonly emptyBodies: boolean;
  /** How long an Idempotency-Key is remembered after the request it created, by the simulator clock; after that a replay is a brand-new key. */
  readonly keyRetention: 'forever' | { readonly hours: number };
  /** 'key-first': a known key replays before the body is validated. 'upload-first': body and upload first, then the key. */
  readonly checkOrder: 'key-first' | 'upload-first';
  /** Answer to a creation whose upload has expired / is unknown (the message names `document.upload_id`). */
  readonly uploadExpired: { readonly status: 400 | 404 | 410 | 422; readonly code: string };
  readonly uploadUnknown: { readonly status: 400 | 404 | 422; readonly code: string };
  /** How `expires_in_hours` is reported: a number, a numeric string, absent, or unreadable text. */
  readonly uploadLifetime: 'number' | 'string' | 'absent' | 'unreadable';
  /** Access tokens: lifetime in seconds and whether `expires_in` is reported. */
  readonly token: { readonly ttlSeconds: number; readonly reportsExpiresIn: boolean };
  /** Retry-After in delay-seconds or as an HTTP-date (then `Date` gives the simulator clock). */
  readonly retryAfter: 'seconds' | 'http-date';
  /** Every JSON answer carries unknown fields, at the top level and inside nested objects. */
  readonly extraFields: boolean;
  /**
   * What a read shows: 'full' echoes `external_reference` and `transaction_type` too; 'spec'
   * answers only the fields §4.4 lists (id, submission_status, status, document.status,
   * evidence.ready, prepared_at, opened_at, finalized_at).
   */
  readonly readFields: 'full' | 'spec';
  /**
   * A key reused with another body (spec §4.3: "not shown"): refused with this status and code
   * (409 `idempotency_key_reused`; Stripe's 400 `idempotency_error`; the IETF draft's 422), or
   * 'replay': the body is not compared and the earlier request is replayed.
   */
  readonly keyReuse: { readonly status: 400 | 409 | 422; readonly code: string } | 'replay';
  /**
   * What a creation's success carries (§4.3 shows a body): 'body' (the id in it); 'location' (no
   * body, the request named by a `Location` header, as services that accept work asynchronously
   * do; a replay answers the same way); 'bare-then-replay' (no body and no Location; a replay of
   * the key answers with the body).
   */
  readonly createAnswer: 'body' | 'location' | 'bare-then-replay';
}

/**
 * Every value each field takes across the variants (named and seeded). The named variants
 * together use every one of them; `variantFromSeed` draws from these lists.
 */
export const VARIANT_CHOICES = {
  upload: [200, 201, 202, 203],
  create: [200, 201, 202, 203],
  replay: ['same', 200],
  participant: [200, 201, 202, 203, 204],
  prepare: [200, 201, 202, 203, 204],
  widget: [200, 201],
  read: [200, 203],
  emptyBodies: [false, true],
  keyRetention: ['forever', { hours: 24 }, { hours: 1 }],
  checkOrder: ['key-first', 'upload-first'],
  uploadExpiredStatus: [400, 404, 410, 422],
  uploadExpiredCode: ['upload_expired', 'invalid_upload', 'expired_upload', 'upload_not_found'],
  uploadUnknownStatus: [400, 404, 422],
  uploadUnknownCode: ['upload_not_found', 'invalid_upload', 'unknown_upload'],
  uploadLifetime: ['number', 'string', 'absent', 'unreadable'],
  tokenTtlSeconds: [3600, 900, 60],
  reportsExpiresIn: [true, false],
  retryAfter: ['seconds', 'http-date'],
  extraFields: [false, true],
  readFields: ['full', 'spec'],
  keyReuseStatus: [409, 400, 422],
  keyReuseCode: ['idempotency_key_reused', 'idempotency_error', 'idempotency_key_mismatch'],
  keyReuseReplays: [false, true],
  createAnswer: ['body', 'location', 'bare-then-replay'],
} as const satisfies Record<string, readonly unknown[]>;

/** Exactly the simulator's behaviour before variants existed; the default of `startSimulator`. */
export const REFERENCE_VARIANT: ServiceVariant = deepFreeze({
  name: 'reference',
  success: { upload: 201, create: 201, replay: 200, participant: 201, prepare: 200, widget: 200, read: 200 },
  emptyBodies: false,
  keyRetention: 'forever',
  checkOrder: 'key-first',
  uploadExpired: { status: 422, code: 'upload_expired' },
  uploadUnknown: { status: 422, code: 'upload_not_found' },
  uploadLifetime: 'number',
  token: { ttlSeconds: 3600, reportsExpiresIn: true },
  retryAfter: 'seconds',
  extraFields: false,
  readFields: 'full',
  keyReuse: { status: 409, code: 'idempotency_key_reused' },
  createAnswer: 'body',
});

type VariantChanges = Omit<Partial<ServiceVariant>, 'success' | 'name'> & {
  success?: Partial<ServiceVariant['success']>;
};

function variantOf(name: string, changes: VariantChanges): ServiceVariant {
  return deepFreeze({
    ...REFERENCE_VARIANT,
    ...changes,
    name,
    success: { ...REFERENCE_VARIANT.success, ...changes.success },
  });
}

/** The named variants; together they play every value of `VARIANT_CHOICES`. */
export const SERVICE_VARIANTS: readonly ServiceVariant[] = Object.freeze([
  REFERENCE_VARIANT,
  /** Stripe-like: keys kept 24 h, the body and its upload checked before the key. */
  variantOf('strict-24h', {
    keyRetention: { hours: 24 },
    keyReuse: { status: 400, code: 'idempotency_error' },
    checkOrder: 'upload-first',
    uploadExpired: { status: 422, code: 'invalid_upload' },
    uploadUnknown: { status: 422, code: 'invalid_upload' },
  }),
  /** Keys forgotten after one hour; plain 200s and 400s. */
  variantOf('short-memory', {
    success: { create: 200, replay: 'same' },
    keyRetention: { hours: 1 },
    uploadExpired: { status: 400, code: 'expired_upload' },
    uploadUnknown: { status: 400, code: 'unknown_upload' },
    token: { ttlSeconds: 900, reportsExpiresIn: true },
  }),
  /** No Content: participant and prepare answer 204 without a body. */
  variantOf('empty-204', {
    success: { upload: 200, replay: 'same', participant: 204, prepare: 204, widget: 201 },
    emptyBodies: true,
  }),
  /** Accepted and non-authoritative answers everywhere, the lifetime as a string. */
  variantOf('accepted-202', {
    success: { upload: 203, create: 202, participant: 202, prepare: 203, read: 203 },
    uploadLifetime: 'string',
    createAnswer: 'location',
  }),
  /** Tells little: no upload lifetime, one-minute tokens without `expires_in`, empty 200/201 bodies. */
  variantOf('terse-token', {
    success: { participant: 200, prepare: 201 },
    keyReuse: 'replay',
    emptyBodies: true,
    uploadLifetime: 'absent',
    token: { ttlSeconds: 60, reportsExpiresIn: false },
    readFields: 'spec',
  }),
  /** Retry-After as an HTTP-date, unknown fields in every JSON answer. */
  variantOf('http-date-extras', {
    success: { upload: 202, participant: 203, prepare: 202, widget: 201 },
    keyRetention: { hours: 24 },
    uploadLifetime: 'string',
    retryAfter: 'http-date',
    extraFields: true,
  }),
  /** Gone is 410, unknown is 404; the lifetime cannot be read. */
  variantOf('gone-404-410', {
    success: { create: 203, replay: 'same', read: 203 },
    keyReuse: { status: 422, code: 'idempotency_key_mismatch' },
    keyRetention: { hours: 24 },
    checkOrder: 'upload-first',
    uploadExpired: { status: 410, code: 'upload_expired' },
    uploadUnknown: { status: 404, code: 'upload_not_found' },
    uploadLifetime: 'unreadable',
  }),
  /** Everything hard at once: expired uploads purged (404), keys kept 1 h, short silent tokens. */
  variantOf('purged-404', {
    success: { create: 202, replay: 'same', participant: 204, prepare: 200 },
    createAnswer: 'bare-then-replay',
    emptyBodies: true,
    keyRetention: { hours: 1 },
    checkOrder: 'upload-first',
    uploadExpired: { status: 404, code: 'upload_not_found' },
    uploadUnknown: { status: 404, code: 'upload_not_found' },
    uploadLifetime: 'absent',
    token: { ttlSeconds: 60, reportsExpiresIn: false },
    retryAfter: 'http-date',
    extraFields: true,
    readFields: 'spec',
  }),
]);

const SEEDED_NAME = /^seeded-(\d+)$/;

/** The named variant, or `seeded-<n>` rebuilt from its seed; throws listing the names. */
export function variantNamed(name: string): ServiceVariant {
  const named = SERVICE_VARIANTS.find((variant) => variant.name === name);
  if (named) return named;
  const seeded = SEEDED_NAME.exec(name);
  if (seeded) return variantFromSeed(Number(seeded[1]));
  const names = SERVICE_VARIANTS.map((variant) => variant.name).join(', ');
  throw new Error(`unknown service variant "${name}"; known variants: ${names}, or seeded-<seed>`);
}

/** A random combination of every field, the same for the same seed; named `seeded-<seed>`. */
export function variantFromSeed(seed: number): ServiceVariant {
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new RangeError(`a variant seed must be a non-negative integer, got ${seed}`);
  const random = createSeededRandom(seed);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const choices = VARIANT_CHOICES;
  return deepFreeze({
    name: `seeded-${seed}`,
    success: {
      upload: pick(choices.upload),
      create: pick(choices.create),
      replay: pick(choices.replay),
      participant: pick(choices.participant),
      prepare: pick(choices.prepare),
      widget: pick(choices.widget),
      read: pick(choices.read),
    },
    emptyBodies: pick(choices.emptyBodies),
    keyRetention: pick(choices.keyRetention),
    checkOrder: pick(choices.checkOrder),
    uploadExpired: { status: pick(choices.uploadExpiredStatus), code: pick(choices.uploadExpiredCode) },
    uploadUnknown: { status: pick(choices.uploadUnknownStatus), code: pick(choices.uploadUnknownCode) },
    uploadLifetime: pick(choices.uploadLifetime),
    token: { ttlSeconds: pick(choices.tokenTtlSeconds), reportsExpiresIn: pick(choices.reportsExpiresIn) },
    retryAfter: pick(choices.retryAfter),
    extraFields: pick(choices.extraFields),
    readFields: pick(choices.readFields),
    keyReuse: pick(choices.keyReuseReplays)
      ? 'replay'
      : { status: pick(choices.keyReuseStatus), code: pick(choices.keyReuseCode) },
    createAnswer: pick(choices.createAnswer),
  });
}

/** Retention in milliseconds, or Infinity for 'forever'. */
export function keyRetentionMs(variant: ServiceVariant): number {
  return variant.keyRetention === 'forever' ? Infinity : variant.keyRetention.hours * 3_600_000;
}

/** One line for test output, e.g. "strict-24h: upload 201, create 201 (replay 200), …". */
export function describeVariant(variant: ServiceVariant): string {
  const { success } = variant;
  const replay = success.replay === 'same' ? success.create : 200;
  const keys = variant.keyRetention === 'forever' ? 'forever' : `${variant.keyRetention.hours} h`;
  const bodies = variant.emptyBodies ? 'empty participant/prepare bodies' : 'full bodies';
  return [
    `${variant.name}: upload ${success.upload}`,
    `create ${success.create} (replay ${replay})`,
    `participant ${success.participant}`,
    `prepare ${success.prepare}`,
    `widget ${success.widget}`,
    `read ${success.read}`,
    bodies,
    `keys ${keys}`,
    variant.checkOrder,
    `expired upload ${variant.uploadExpired.status} ${variant.uploadExpired.code}`,
    `unknown upload ${variant.uploadUnknown.status} ${variant.uploadUnknown.code}`,
    `upload lifetime ${variant.uploadLifetime}`,
    `token ${variant.token.ttlSeconds} s${variant.token.reportsExpiresIn ? '' : ' (expires_in not reported)'}`,
    `Retry-After ${variant.retryAfter}`,
    variant.extraFields ? 'extra fields' : 'no extra fields',
    variant.readFields === 'spec' ? 'reads show §4.4 fields only' : 'reads echo the reference',
    variant.keyReuse === 'replay'
      ? 'a key reused with another body replays'
      : `a key reused with another body ${variant.keyReuse.status} ${variant.keyReuse.code}`,
    `creation answers ${variant.createAnswer}`,
  ].join(', ');
}

/**
 * The variants a suite runs across: `SIM_VARIANTS` ('all', the default, or comma-separated
 * names, `seeded-<n>` included), plus `variantFromSeed(SIM_VARIANT_SEED)` when that is set.
 * Throws on an unknown name or an invalid seed, so a typo never silently narrows a run.
 */
export function variantsForSuite(env: NodeJS.ProcessEnv = process.env): readonly ServiceVariant[] {
  const wanted = (env.SIM_VARIANTS ?? 'all').trim();
  const variants: ServiceVariant[] =
    wanted === '' || wanted === 'all'
      ? [...SERVICE_VARIANTS]
      : wanted
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '')
          .map(variantNamed);
  const seedText = env.SIM_VARIANT_SEED?.trim();
  if (seedText !== undefined && seedText !== '') {
    if (!/^\d+$/.test(seedText))
      throw new RangeError(`SIM_VARIANT_SEED must be a non-negative integer, got "${seedText}"`);
    variants.push(variantFromSeed(Number(seedText)));
  }
  const seen = new Set<string>();
  return variants.filter((variant) => !seen.has(variant.name) && seen.add(variant.name));
}

/** Throws RangeError when a hand-made variant holds a value the simulator cannot play. */
export function checkVariant(variant: ServiceVariant): void {
  const problems: string[] = [];
  const oneOf = (field: string, value: unknown, allowed: readonly unknown[]) => {
    if (!allowed.includes(value))
      problems.push(`${field} ${String(value)} is not one of ${allowed.join(', ')}`);
  };
  const { success } = variant;
  oneOf('success.upload', success.upload, VARIANT_CHOICES.upload);
  oneOf('success.create', success.create, VARIANT_CHOICES.create);
  oneOf('success.replay', success.replay, VARIANT_CHOICES.replay);
  oneOf('success.participant', success.participant, VARIANT_CHOICES.participant);
  oneOf('success.prepare', success.prepare, VARIANT_CHOICES.prepare);
  oneOf('success.widget', success.widget, VARIANT_CHOICES.widget);
  oneOf('success.read', success.read, VARIANT_CHOICES.read);
  oneOf('checkOrder', variant.checkOrder, VARIANT_CHOICES.checkOrder);
  oneOf('uploadExpired.status', variant.uploadExpired.status, VARIANT_CHOICES.uploadExpiredStatus);
  oneOf('uploadUnknown.status', variant.uploadUnknown.status, VARIANT_CHOICES.uploadUnknownStatus);
  oneOf('uploadLifetime', variant.uploadLifetime, VARIANT_CHOICES.uploadLifetime);
  oneOf('retryAfter', variant.retryAfter, VARIANT_CHOICES.retryAfter);
  oneOf('readFields', variant.readFields, VARIANT_CHOICES.readFields);
  oneOf('createAnswer', variant.createAnswer, VARIANT_CHOICES.createAnswer);
  if (variant.keyReuse !== 'replay')
    oneOf('keyReuse.status', variant.keyReuse.status, VARIANT_CHOICES.keyReuseStatus);
  const retention = keyRetentionMs(variant);
  if (!(retention >= 0)) problems.push('keyRetention.hours must be a non-negative number');
  if (!Number.isFinite(variant.token.ttlSeconds) || variant.token.ttlSeconds < 0)
    problems.push('token.ttlSeconds must be a non-negative number');
  if (variant.uploadExpired.code === '' || variant.uploadUnknown.code === '')
    problems.push('upload error codes must not be empty');
  if (problems.length > 0) throw new RangeError(`variant ${variant.name}: ${problems.join('; ')}`);
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
