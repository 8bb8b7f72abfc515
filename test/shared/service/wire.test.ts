import { describe, expect, it } from 'vitest';
import { isFinal } from '../../../shared/service/status';
import {
  createSigningRequestBodySchema,
  participantSchema,
  prepareResponseSchema,
  signingRequestSchema,
  tokenResponseSchema,
  uploadSchema,
  widgetSessionSchema,
} from '../../../shared/service/wire';

const SHA = 'a'.repeat(64);
const signer = {
  participant_type: 'signer',
  role: 'Employee',
  name: 'Anne Dupré',
  email: 'anne@example.com',
};

function issuesOf(result: {
  success: boolean;
  error?: { issues: { path: PropertyKey[]; message: string }[] };
}) {
  return (result.error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('participant rules (spec §2.4)', () => {
  it('accepts a complete signer and an observer', () => {
    expect(participantSchema.safeParse({ ...signer, is_internal: true, signing_order: 1 }).success).toBe(
      true,
    );
    expect(participantSchema.safeParse({ ...signer, participant_type: 'observer' }).success).toBe(true);
  });

  it.each([
    [{ participant_type: 'approver' }, 'participant_type'],
    [{ role: 'r'.repeat(101) }, 'role: must be at most 100 characters'],
    [{ role: '' }, 'role: is required'],
    [{ name: 'n'.repeat(256) }, 'name: must be at most 255 characters'],
    [{ name: '   ' }, 'name: is required'],
    [{ email: 'anne@' }, 'email: must be a valid e-mail address'],
    [{ email: 'anne example.com' }, 'email: must be a valid e-mail address'],
    [{ email: `${'a'.repeat(64)}@${'b'.repeat(186)}.com` }, 'email: must be at most 254 characters'],
    [{ signing_order: 0 }, 'signing_order: must be at least 1'],
    [{ signing_order: 1.5 }, 'signing_order: must be a whole number'],
    [{ is_internal: 'yes' }, 'is_internal'],
  ])('rejects %j with "%s"', (change, expected) => {
    const messages = issuesOf(participantSchema.safeParse({ ...signer, ...change }));
    expect(messages.some((message) => message.startsWith(expected))).toBe(true);
  });

  it('accepts the limits exactly', () => {
    const atLimits = { ...signer, role: 'r'.repeat(100), name: 'n'.repeat(255), signing_order: 1 };
    expect(participantSchema.safeParse(atLimits).success).toBe(true);
  });
});

describe('create signing request body (spec §4.3)', () => {
  const body = {
    external_reference: 'HR-2026-001',
    transaction_type: 'employment_contract',
    document: { upload_id: 'upl_123' },
    recipients: [signer],
    signing: { enforce_order: true, owner: { must_sign: false } },
    ceremony: { mode: 'remote', meeting_provider: 'none' },
    evidence_level: 'standard',
    locale: 'fr-FR',
  };

  it('accepts a full body', () => {
    expect(createSigningRequestBodySchema.safeParse(body).success).toBe(true);
  });

  it('accepts a region given as a UN M.49 number (BCP 47), e.g. es-419', () => {
    expect(createSigningRequestBodySchema.safeParse({ ...body, locale: 'es-419' }).success).toBe(true);
  });

  it.each([
    [{ document: { upload_id: 'abc' } }, 'document.upload_id: must begin with upl_'],
    [{ document: { upload_id: 'upl_' } }, 'document.upload_id: must not be empty after the prefix'],
    [{ locale: 'fr' }, 'locale: must look like language-REGION'],
    [{ locale: 'fr_FR' }, 'locale: must look like language-REGION'],
    [{ locale: 'FR-fr' }, 'locale: must look like language-REGION'],
    [{ locale: 'es-41' }, 'locale: must look like language-REGION'],
    [{ recipients: [] }, 'recipients: needs at least one recipient'],
    [{ external_reference: ' ' }, 'external_reference: is required'],
  ])('rejects %j with "%s"', (change, expected) => {
    const messages = issuesOf(createSigningRequestBodySchema.safeParse({ ...body, ...change }));
    expect(messages.some((message) => message.startsWith(expected))).toBe(true);
  });
});

describe('answers from the service stay open (README "Answers the spec does not pin down")', () => {
  it('keeps unknown fields of an upload', () => {
    const parsed = uploadSchema.parse({
      upload_id: 'upl_1',
      filename: 'a.pdf',
      sha256: SHA,
      size_bytes: 10,
      expires_in_hours: 24,
      region: 'eu-west',
    });
    expect(parsed).toMatchObject({ region: 'eu-west' });
  });

  it('rejects an upload id without the upl_ prefix', () => {
    const result = uploadSchema.safeParse({
      upload_id: 'file_1',
      filename: 'a.pdf',
      sha256: SHA,
      size_bytes: 10,
      expires_in_hours: 24,
    });
    expect(result.success).toBe(false);
  });

  it('parses unknown status values and keeps them as they are', () => {
    const parsed = signingRequestSchema.parse({
      id: 'sr_1',
      status: 'awaiting_countersignature',
      document: { status: 'locked', pages: 3 },
      evidence: { ready: false, format: 'pades' },
      prepared_at: '2026-11-02T10:00:00Z',
      opened_at: null,
      finalized_at: null,
    });
    expect(parsed.status).toBe('awaiting_countersignature');
    expect(parsed.document).toMatchObject({ status: 'locked', pages: 3 });
    expect(parsed.evidence).toMatchObject({ format: 'pades' });
  });

  it('recognises the final state only when every condition of spec §3 holds', () => {
    const done = {
      id: 'sr_1',
      status: 'completed',
      document: { status: 'finalized' },
      evidence: { ready: true },
      finalized_at: '2026-11-02T11:00:00Z',
    };
    expect(isFinal(signingRequestSchema.parse(done))).toBe(true);
    expect(isFinal(signingRequestSchema.parse({ ...done, evidence: { ready: false } }))).toBe(false);
    expect(isFinal(signingRequestSchema.parse({ ...done, finalized_at: null }))).toBe(false);
    expect(isFinal(signingRequestSchema.parse({ ...done, document: { status: 'prepared' } }))).toBe(false);
    expect(isFinal(signingRequestSchema.parse({ ...done, status: 'in_progress' }))).toBe(false);
  });

  it('reads fields the spec does not pin down without failing the whole answer', () => {
    // Timestamps in other formats are kept as written, for display.
    const read = signingRequestSchema.parse({
      id: 'sr_1',
      status: 'in_progress',
      document: { status: 'prepared', revision: '2', sha256: 'q1w2e3==' },
      evidence: null,
      prepared_at: '2026-11-02T10:00+0000',
      opened_at: 1_793_000_000,
      finalized_at: null,
    });
    expect(read).toMatchObject({
      document: { revision: 2, sha256: 'q1w2e3==' },
      evidence: null,
      prepared_at: '2026-11-02T10:00+0000',
      opened_at: '1793000000',
    });
    // An unreadable evidence object or revision counts as "not known yet".
    expect(signingRequestSchema.parse({ id: 'sr_1', status: 'completed', evidence: 'soon' }).evidence).toBe(
      undefined,
    );
    expect(
      signingRequestSchema.parse({ id: 'sr_1', status: 'prepared', document: { revision: 'first' } })
        .document,
    ).toEqual({ revision: undefined });
    expect(
      prepareResponseSchema.parse({ id: 'sr_1', status: 'prepared', document: { revision: 1, sha256: 'x' } }),
    ).toMatchObject({ document: { revision: 1, sha256: 'x' } });
  });

  it('reads a token lifetime written as a string, and treats an unreadable one as unknown', () => {
    expect(tokenResponseSchema.parse({ access_token: 't', expires_in: '3600' }).expires_in).toBe(3600);
    expect(tokenResponseSchema.parse({ access_token: 't', expires_in: 'soon' }).expires_in).toBeUndefined();
    expect(tokenResponseSchema.parse({ access_token: 't' }).expires_in).toBeUndefined();
    expect(
      uploadSchema.parse({ upload_id: 'upl_1', filename: 'a.pdf', sha256: SHA, size_bytes: 1 })
        .expires_in_hours,
    ).toBeUndefined();
  });

  it('refuses a widget URL that is not http(s)', () => {
    const session = { id: 'sr_1', expires_in_seconds: 900 };
    expect(
      widgetSessionSchema.safeParse({ ...session, widget_url: 'https://sign.example/w/abc' }).success,
    ).toBe(true);
    expect(widgetSessionSchema.safeParse({ ...session, widget_url: 'javascript:alert(1)' }).success).toBe(
      false,
    );
    expect(widgetSessionSchema.safeParse({ ...session, widget_url: 'file:///etc/passwd' }).success).toBe(
      false,
    );
  });
});
