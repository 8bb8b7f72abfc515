import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../simulator/simulator';
import {
  REFERENCE_VARIANT,
  SERVICE_VARIANTS,
  VARIANT_CHOICES,
  checkVariant,
  describeVariant,
  variantFromSeed,
  variantNamed,
  variantsForSuite,
  type ServiceVariant,
} from '../../simulator/variants';

/** The value of each VARIANT_CHOICES entry in a variant, as JSON for comparison. */
function choicesOf(variant: ServiceVariant): Record<keyof typeof VARIANT_CHOICES, string> {
  const { success } = variant;
  const values = {
    upload: success.upload,
    create: success.create,
    replay: success.replay,
    participant: success.participant,
    prepare: success.prepare,
    widget: success.widget,
    read: success.read,
    emptyBodies: variant.emptyBodies,
    keyRetention: variant.keyRetention,
    checkOrder: variant.checkOrder,
    uploadExpiredStatus: variant.uploadExpired.status,
    uploadExpiredCode: variant.uploadExpired.code,
    uploadUnknownStatus: variant.uploadUnknown.status,
    uploadUnknownCode: variant.uploadUnknown.code,
    uploadLifetime: variant.uploadLifetime,
    tokenTtlSeconds: variant.token.ttlSeconds,
    reportsExpiresIn: variant.token.reportsExpiresIn,
    retryAfter: variant.retryAfter,
    extraFields: variant.extraFields,
    readFields: variant.readFields,
    keyReuseStatus: variant.keyReuse === 'replay' ? undefined : variant.keyReuse.status,
    keyReuseCode: variant.keyReuse === 'replay' ? undefined : variant.keyReuse.code,
    keyReuseReplays: variant.keyReuse === 'replay',
    createAnswer: variant.createAnswer,
  };
  return Object.fromEntries(
    Object.entries(values).map(([field, value]) => [field, JSON.stringify(value)]),
  ) as Record<keyof typeof VARIANT_CHOICES, string>;
}

describe('the named service variants', () => {
  it('start with the reference, exactly the behaviour before variants existed', () => {
    expect(SERVICE_VARIANTS[0]).toBe(REFERENCE_VARIANT);
    expect(REFERENCE_VARIANT).toEqual({
      name: 'reference',
      success: {
        upload: 201,
        create: 201,
        replay: 200,
        participant: 201,
        prepare: 200,
        widget: 200,
        read: 200,
      },
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
  });

  it('are at least 8, with unique names, each one playable', () => {
    expect(SERVICE_VARIANTS.length).toBeGreaterThanOrEqual(8);
    const names = SERVICE_VARIANTS.map((variant) => variant.name);
    expect(new Set(names).size).toBe(names.length);
    for (const variant of SERVICE_VARIANTS) expect(() => checkVariant(variant)).not.toThrow();
  });

  it('together use every value of every field', () => {
    const used = SERVICE_VARIANTS.map(choicesOf);
    for (const [field, values] of Object.entries(VARIANT_CHOICES)) {
      for (const value of values as readonly unknown[]) {
        const json = JSON.stringify(value);
        expect(
          used.some((choices) => choices[field as keyof typeof VARIANT_CHOICES] === json),
          `${field} = ${json}`,
        ).toBe(true);
      }
    }
  });

  it('include the combinations the suites rely on', () => {
    const strict = variantNamed('strict-24h');
    expect([strict.keyRetention, strict.checkOrder, strict.uploadExpired]).toEqual([
      { hours: 24 },
      'upload-first',
      { status: 422, code: 'invalid_upload' },
    ]);
    expect(variantNamed('short-memory').keyRetention).toEqual({ hours: 1 });
    const empty = variantNamed('empty-204');
    expect([empty.emptyBodies, empty.success.participant, empty.success.prepare]).toEqual([true, 204, 204]);
    const accepted = variantNamed('accepted-202').success;
    expect([accepted.create, accepted.upload, accepted.read]).toEqual([202, 203, 203]);
    const terse = variantNamed('terse-token');
    expect([terse.uploadLifetime, terse.token]).toEqual([
      'absent',
      { ttlSeconds: 60, reportsExpiresIn: false },
    ]);
    const dated = variantNamed('http-date-extras');
    expect([dated.retryAfter, dated.extraFields]).toEqual(['http-date', true]);
    const gone = variantNamed('gone-404-410');
    expect([gone.uploadUnknown, gone.uploadExpired]).toEqual([
      { status: 404, code: 'upload_not_found' },
      { status: 410, code: 'upload_expired' },
    ]);
  });

  it('are frozen, so a test cannot change them for the next one', () => {
    expect(Object.isFrozen(REFERENCE_VARIANT)).toBe(true);
    expect(Object.isFrozen(REFERENCE_VARIANT.success)).toBe(true);
    expect(Object.isFrozen(variantNamed('strict-24h').uploadExpired)).toBe(true);
  });
});

describe('variantNamed and variantFromSeed', () => {
  it('throws for an unknown name, listing every name', () => {
    expect(() => variantNamed('strict-42h')).toThrow(/unknown service variant "strict-42h"/);
    for (const variant of SERVICE_VARIANTS) {
      expect(() => variantNamed('nope')).toThrow(new RegExp(variant.name));
    }
  });

  it('gives the same combination for the same seed, named seeded-<seed>, and rebuilds it from its name', () => {
    const first = variantFromSeed(7);
    expect(first.name).toBe('seeded-7');
    expect(variantFromSeed(7)).toEqual(first);
    expect(variantNamed('seeded-7')).toEqual(first);
    expect(() => checkVariant(first)).not.toThrow();
    expect(() => variantFromSeed(-1)).toThrow(RangeError);
    expect(() => variantFromSeed(1.5)).toThrow(RangeError);
  });

  it('draws every value of every field over enough seeds', () => {
    const seen = new Map<string, Set<string>>();
    for (let seed = 0; seed < 400; seed += 1) {
      for (const [field, value] of Object.entries(choicesOf(variantFromSeed(seed)))) {
        const values = seen.get(field) ?? new Set<string>();
        // A field a variant does not use (the refusal of a key reuse when it replays) draws nothing.
        if (value !== undefined) values.add(value);
        seen.set(field, values);
      }
    }
    for (const [field, values] of Object.entries(VARIANT_CHOICES)) {
      expect(seen.get(field)?.size, field).toBe(values.length);
    }
  });
});

describe('describeVariant', () => {
  it('says every choice in one line', () => {
    const line = describeVariant(variantNamed('strict-24h'));
    expect(line).not.toContain('\n');
    expect(line).toMatch(/^strict-24h: upload 201, create 201 \(replay 200\), /);
    expect(line).toContain('keys 24 h, upload-first, expired upload 422 invalid_upload');
    expect(describeVariant(variantNamed('terse-token'))).toContain('token 60 s (expires_in not reported)');
    expect(describeVariant(variantNamed('empty-204'))).toContain('create 201 (replay 201)');
  });
});

describe('variantsForSuite', () => {
  it('gives every named variant by default and for SIM_VARIANTS=all', () => {
    expect(variantsForSuite({})).toEqual(SERVICE_VARIANTS);
    expect(variantsForSuite({ SIM_VARIANTS: 'all' })).toEqual(SERVICE_VARIANTS);
  });

  it('gives the variants named in SIM_VARIANTS, in order, without repeats', () => {
    const names = variantsForSuite({ SIM_VARIANTS: ' strict-24h,reference ,strict-24h' }).map(
      (variant) => variant.name,
    );
    expect(names).toEqual(['strict-24h', 'reference']);
    expect(() => variantsForSuite({ SIM_VARIANTS: 'strict-24h,typo' })).toThrow(/known variants: reference/);
  });

  it('adds the variant of SIM_VARIANT_SEED, and refuses a seed that is not a number', () => {
    const names = variantsForSuite({ SIM_VARIANTS: 'reference', SIM_VARIANT_SEED: '12' }).map(
      (variant) => variant.name,
    );
    expect(names).toEqual(['reference', 'seeded-12']);
    expect(variantsForSuite({ SIM_VARIANT_SEED: '3' })).toHaveLength(SERVICE_VARIANTS.length + 1);
    expect(() => variantsForSuite({ SIM_VARIANT_SEED: 'abc' })).toThrow(/SIM_VARIANT_SEED/);
  });
});

describe('startSimulator with a variant', () => {
  it('plays the reference by default and exposes the variant it plays', async () => {
    const byDefault = await startSimulator();
    const strict = await startSimulator({ variant: variantNamed('strict-24h') });
    try {
      expect(byDefault.variant).toBe(REFERENCE_VARIANT);
      expect(strict.variant.name).toBe('strict-24h');
    } finally {
      await byDefault.close();
      await strict.close();
    }
  });

  it('refuses a hand-made variant it cannot play', async () => {
    const broken = {
      ...REFERENCE_VARIANT,
      name: 'broken',
      success: { ...REFERENCE_VARIANT.success, read: 204 },
    } as unknown as ServiceVariant;
    await expect(startSimulator({ variant: broken })).rejects.toThrow(/success\.read 204/);
    const negative = { ...REFERENCE_VARIANT, keyRetention: { hours: -1 } };
    await expect(startSimulator({ variant: negative })).rejects.toThrow(/keyRetention/);
  });
});
