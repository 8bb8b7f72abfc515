import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/simulator';
import {
  JSON_HEADERS,
  createSigningRequest,
  fetchJson,
  generatedPdfStream,
  getToken,
  rawRequest,
  samplePdf,
  signingRequestBody,
  uploadPdf,
} from './test-support';

const FIFTY_MIB = 50 * 1024 * 1024;

let simulator: Simulator;
let token: string;

beforeAll(async () => {
  simulator = await startSimulator({ uploadTtlHours: 2 });
  token = await getToken(simulator);
});

afterAll(async () => {
  await simulator.close();
});

function uploadWithContentType(
  contentType: string | undefined,
  body: Uint8Array<ArrayBuffer> = new Uint8Array(samplePdf()),
) {
  return fetchJson(`${simulator.baseUrl}/api/v1/uploads`, {
    method: 'POST',
    headers: {
      ...JSON_HEADERS,
      authorization: `Bearer ${token}`,
      ...(contentType === undefined ? {} : { 'content-type': contentType }),
    },
    body,
  });
}

describe('POST /api/v1/uploads', () => {
  it('answers 201 with the upload: id, normalized name, SHA-256, size, lifetime', async () => {
    const pdf = samplePdf('hello');
    const answer = await uploadPdf(simulator, token, pdf, { 'x-filename': 'Quarterly report.pdf' });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      upload_id: expect.stringMatching(/^upl_[0-9a-f]{24}$/),
      filename: 'Quarterly_report.pdf',
      sha256: createHash('sha256').update(pdf).digest('hex'),
      size_bytes: pdf.length,
      expires_in_hours: 2,
    });
    const record = simulator.state.uploads().find((upload) => upload.uploadId === answer.body.upload_id);
    expect(record).toMatchObject({
      clientId: 'demo-desk',
      filename: 'Quarterly_report.pdf',
      sizeBytes: pdf.length,
      expired: false,
    });
  });

  it('names the file document.pdf without X-Filename', async () => {
    const answer = await uploadPdf(simulator, token);
    expect(answer.body.filename).toBe('document.pdf');
  });

  it('decodes a percent-encoded UTF-8 X-Filename before normalizing it', async () => {
    const answer = await uploadPdf(simulator, token, samplePdf(), {
      'x-filename': encodeURIComponent('C:\\Users\\anne\\Contrat été 2026.pdf'),
    });
    expect(answer.body.filename).toBe('Contrat_ete_2026.pdf');
  });

  it('records a violation for raw non-ASCII bytes in X-Filename', async () => {
    const answer = await rawRequest(simulator.baseUrl, {
      method: 'POST',
      path: '/api/v1/uploads',
      headers: {
        ...JSON_HEADERS,
        authorization: `Bearer ${token}`,
        'content-type': 'application/pdf',
        'x-filename': Buffer.from('été.pdf', 'utf8').toString('latin1'),
      },
      body: samplePdf(),
    });
    expect(answer.kind === 'answered' && answer.status).toBe(201);
    expect(simulator.state.violations().some((violation) => violation.includes('non-ASCII X-Filename'))).toBe(
      true,
    );
  });

  it.each([
    ['multipart form data', 'multipart/form-data; boundary=x'],
    ['a charset parameter', 'application/pdf; charset=binary'],
    ['octet-stream', 'application/octet-stream'],
    ['no content type', undefined],
  ])('answers 415 invalid_content_type for %s', async (_label, contentType) => {
    const answer = await uploadWithContentType(contentType);
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual({ error: { code: 'invalid_content_type', message: expect.any(String) } });
  });

  it('accepts the media type in any case', async () => {
    expect((await uploadWithContentType('Application/PDF')).status).toBe(201);
  });

  it('answers 422 missing_pdf for an empty body', async () => {
    const answer = await uploadWithContentType('application/pdf', new Uint8Array());
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('missing_pdf');
  });

  it.each([
    ['a text file', 'hello world, not a pdf'],
    ['a header without version', '%PDF-\nrest'],
    ['a lower-case header', '%pdf-1.7\n'],
    ['a header cut short', '%PDF-1.'],
    ['a leading space', ' %PDF-1.7\n'],
    ['a version that does not exist, %PDF-1.8', '%PDF-1.8\n%%EOF'],
    ['a version that does not exist, %PDF-1.9', '%PDF-1.9\n%%EOF'],
    ['a version that does not exist, %PDF-2.1', '%PDF-2.1\n%%EOF'],
    ['a version that does not exist, %PDF-3.0', '%PDF-3.0\n%%EOF'],
    ['a version that does not exist, %PDF-0.9', '%PDF-0.9\n%%EOF'],
    ['a version that is not a number, %PDF-1.a', '%PDF-1.a\n%%EOF'],
    ['a header after other bytes (a byte-order mark)', '\u00ef\u00bb\u00bf%PDF-1.7\n%%EOF'],
  ])('answers 422 invalid_pdf for %s', async (_label, content) => {
    const answer = await uploadPdf(simulator, token, Buffer.from(content, 'latin1'));
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({
      error: {
        code: 'invalid_pdf',
        message: 'the body does not start with a PDF header: %PDF-1.0 to %PDF-1.7, or %PDF-2.0',
      },
    });
  });

  it.each(['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7', '2.0'])(
    'accepts the PDF version that exists %s',
    async (version) => {
      const answer = await uploadPdf(simulator, token, Buffer.from(`%PDF-${version}\n%%EOF`, 'latin1'));
      expect(answer.status).toBe(201);
    },
  );

  it('accepts exactly 50 MiB, hashing the streamed bytes', async () => {
    const hash = createHash('sha256');
    const answer = await rawRequest(simulator.baseUrl, {
      method: 'POST',
      path: '/api/v1/uploads',
      headers: {
        ...JSON_HEADERS,
        authorization: `Bearer ${token}`,
        'content-type': 'application/pdf',
        'x-filename': 'big.pdf',
      },
      body: generatedPdfStream(FIFTY_MIB, (chunk) => hash.update(chunk)),
    });
    expect(answer.kind).toBe('answered');
    if (answer.kind !== 'answered') return;
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.text)).toMatchObject({
      size_bytes: FIFTY_MIB,
      sha256: hash.digest('hex'),
      filename: 'big.pdf',
    });
  });

  it('answers 413 pdf_too_large for 50 MiB + 1 byte, and keeps nothing', async () => {
    const uploadsBefore = simulator.state.uploads().length;
    const answer = await rawRequest(simulator.baseUrl, {
      method: 'POST',
      path: '/api/v1/uploads',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
      body: generatedPdfStream(FIFTY_MIB + 1),
    });
    expect(answer.kind).toBe('answered');
    if (answer.kind !== 'answered') return;
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toEqual({
      error: { code: 'pdf_too_large', message: expect.any(String) },
    });
    expect(simulator.state.uploads().length).toBe(uploadsBefore);
  });

  it('checks the size before the header: a large non-PDF is 413, not 422', async () => {
    const answer = await rawRequest(simulator.baseUrl, {
      method: 'POST',
      path: '/api/v1/uploads',
      headers: { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'content-type': 'application/pdf' },
      body: generatedPdfStream(FIFTY_MIB + 10, undefined, 'not a PDF at all'),
    });
    expect(answer.kind === 'answered' && answer.status).toBe(413);
  });

  it('lets an upload expire by the simulator clock (422 upload_expired on create)', async () => {
    const upload = await uploadPdf(simulator, token);
    simulator.clock.advance(2 * 3_600_000);
    const record = simulator.state
      .uploads()
      .find((candidate) => candidate.uploadId === upload.body.upload_id);
    expect(record?.expired).toBe(true);
    // Two hours also outlive the token (one hour): a client renews it, as here.
    const freshToken = await getToken(simulator);
    const created = await createSigningRequest(
      simulator,
      freshToken,
      signingRequestBody(upload.body.upload_id),
    );
    expect(created.status).toBe(422);
    expect(created.body.error.code).toBe('upload_expired');
  });
});
