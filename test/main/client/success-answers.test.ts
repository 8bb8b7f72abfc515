import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../main/time/virtual-clock';
import type { ServiceResult } from '../../../main/domain/service-failure';
import { expectFailure, expectOk, makeTestClient } from '../../support/client-harness';
import {
  startScriptedServer,
  tokenWithoutLifetime,
  type ScriptedAnswer,
} from '../../support/scripted-server';

const credentials = { clientId: 'desk', clientSecret: 'scripted-secret' };
const EMPTY_204: ScriptedAnswer = { status: 204, body: '' };
const READ_WITH_REVISION: ScriptedAnswer = {
  status: 200,
  body: JSON.stringify({
    id: 'sr_1',
    status: 'prepared',
    document: { status: 'prepared', revision: 3, sha256: 'cafe' },
  }),
};
let close: (() => Promise<void>) | undefined;

/** The service's clock and the client's: waits (read spacing, backoff, Retry-After) take no real time. */
let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});

/** Lets virtual time run until `work` has ended. */
function run<T>(work: Promise<T>): Promise<T> {
  return clock.complete(work);
}

afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A service answering each API call with `answer(request, n)`, n counting calls of that method and path. */
async function serve(answer: (request: IncomingMessage, n: number) => ScriptedAnswer | undefined) {
  const counts = new Map<string, number>();
  const server = await startScriptedServer(
    (request) => {
      if (request.url === '/oauth/token') return tokenWithoutLifetime;
      const key = `${request.method} ${request.url}`;
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return answer(request, n);
    },
    { clock },
  );
  close = server.close;
  const calls = (method: string, path: string) =>
    server.requests.filter((request) => request.method === method && request.url === path).length;
  return { client: makeTestClient(server.baseUrl, credentials, { clock }).client, calls };
}

const creationBody = {
  external_reference: 'REF-1',
  document: { upload_id: 'upl_1' },
  recipients: [
    { participant_type: 'signer' as const, role: 'Signer', name: 'Ada', email: 'ada@example.com' },
  ],
};

describe('prepare: any 2xx is success', () => {
  it('a 204 without a body is prepared; revision and sha256 come from a read of the request', async () => {
    const { client, calls } = await serve((request) =>
      request.method === 'POST' ? EMPTY_204 : READ_WITH_REVISION,
    );
    const prepared = expectOk(await run(client.prepareSigningRequest('sr_1')));
    expect(prepared).toEqual({ alreadyPrepared: false, revision: 3, sha256: 'cafe' });
    expect(calls('POST', '/api/v1/signing-requests/sr_1/prepare')).toBe(1);
    expect(calls('GET', '/api/v1/signing-requests/sr_1')).toBe(1);
  });

  it('an answer with the revision but no sha256 takes the missing one from the read', async () => {
    const { client } = await serve((request) =>
      request.method === 'POST'
        ? { status: 200, body: JSON.stringify({ id: 'sr_1', status: 'prepared', document: { revision: 7 } }) }
        : READ_WITH_REVISION,
    );
    expect(expectOk(await run(client.prepareSigningRequest('sr_1')))).toEqual({
      alreadyPrepared: false,
      revision: 7,
      sha256: 'cafe',
    });
  });

  it('still prepared, with revision and sha256 unknown, when the read lacks them or fails', async () => {
    const lacking = await serve((request) =>
      request.method === 'POST'
        ? { status: 202, body: '' }
        : { status: 200, body: '{"id":"sr_1","status":"prepared","document":{"status":"prepared"}}' },
    );
    expect(expectOk(await run(lacking.client.prepareSigningRequest('sr_1')))).toEqual({
      alreadyPrepared: false,
      revision: undefined,
      sha256: undefined,
    });
    await close?.();
    const failing = await serve((request) =>
      request.method === 'POST'
        ? EMPTY_204
        : { status: 403, body: '{"error":{"code":"insufficient_scope"}}' },
    );
    expect(expectOk(await run(failing.client.prepareSigningRequest('sr_1')))).toEqual({
      alreadyPrepared: false,
      revision: undefined,
      sha256: undefined,
    });
  });

  it('a full answer needs no read', async () => {
    const { client, calls } = await serve(() => ({
      status: 201,
      body: JSON.stringify({
        id: 'sr_1',
        status: 'prepared',
        document: { revision: 1, sha256: 'ab' },
        extra: 1,
      }),
    }));
    expect(expectOk(await run(client.prepareSigningRequest('sr_1')))).toMatchObject({
      revision: 1,
      sha256: 'ab',
    });
    expect(calls('GET', '/api/v1/signing-requests/sr_1')).toBe(0);
  });
});

describe('creation: any 2xx is success, and the answer says what could be read', () => {
  it.each([
    ['an empty 201', { status: 201, body: '' }],
    ['a 204', EMPTY_204],
    ['an HTML 200', { status: 200, body: '<html>ok</html>', headers: { 'content-type': 'text/html' } }],
    ['a JSON answer without id', { status: 202, body: '{"submission_status":"accepted"}' }],
  ])('%s is "created, id unknown"', async (_, answer) => {
    const { client } = await serve(() => answer);
    expect(expectOk(await run(client.createSigningRequest(creationBody, 'key-1')))).toEqual({
      id: undefined,
      replayed: undefined,
      earlierAttemptUnknown: false,
      locationId: undefined,
      serviceTime: expect.any(Number),
    });
  });

  it('a body-less answer whose Location names a request of this service gives that id; any other Location gives none', async () => {
    const { client } = await serve((request) => {
      const key = String(request.headers['idempotency-key']);
      const host = String(request.headers.host);
      const location = {
        'key-same': '/api/v1/signing-requests/sr_42',
        'key-absolute': `http://${host}/api/v1/signing-requests/sr_43`,
        'key-foreign': 'https://elsewhere.example/api/v1/signing-requests/sr_44',
        'key-other-path': '/api/v1/uploads/up_1',
      }[key];
      const headers: Record<string, string> = location === undefined ? {} : { location };
      return { status: 202, body: '', headers };
    });
    const idOf = async (key: string) =>
      expectOk(await run(client.createSigningRequest(creationBody, key))).locationId;
    expect(await idOf('key-same')).toBe('sr_42');
    expect(await idOf('key-absolute')).toBe('sr_43');
    expect(await idOf('key-foreign')).toBeUndefined();
    expect(await idOf('key-other-path')).toBeUndefined();
  });

  it('replayed only when idempotent_replay is a boolean; unknown fields do not matter', async () => {
    const { client } = await serve((_, n) => ({
      status: 200,
      body: JSON.stringify({ id: 'sr_9', idempotent_replay: n === 1 ? 'yes' : true, region: 'eu' }),
    }));
    expect(expectOk(await run(client.createSigningRequest(creationBody, 'key-1')))).toEqual({
      id: 'sr_9',
      replayed: undefined,
      earlierAttemptUnknown: false,
      locationId: undefined,
      serviceTime: expect.any(Number),
    });
    expect(expectOk(await run(client.createSigningRequest(creationBody, 'key-1'))).replayed).toBe(true);
  });

  it('earlierAttemptUnknown after a 500 that the service had applied; not after a 503', async () => {
    const { client } = await serve((request, n) => {
      const key = request.headers['idempotency-key'];
      if (key === 'key-500')
        return n === 1
          ? { status: 500, body: '{"error":{"code":"internal","message":"oops"}}' }
          : { status: 200, body: '{"id":"sr_5","idempotent_replay":true}' };
      return n === 2
        ? { status: 503, body: '{"error":{"code":"upstream_unavailable"}}', headers: { 'retry-after': '0' } }
        : { status: 201, body: '{"id":"sr_6","idempotent_replay":false}' };
    });
    expect(expectOk(await run(client.createSigningRequest(creationBody, 'key-500')))).toEqual({
      id: 'sr_5',
      replayed: true,
      earlierAttemptUnknown: true,
      locationId: undefined,
      serviceTime: expect.any(Number),
    });
    expect(expectOk(await run(client.createSigningRequest(creationBody, 'key-503')))).toEqual({
      id: 'sr_6',
      replayed: false,
      earlierAttemptUnknown: false,
      locationId: undefined,
      serviceTime: expect.any(Number),
    });
  });
});

describe('add participant: any 2xx is success', () => {
  it('a 204 gives no participant id, a 201 with a body gives it', async () => {
    const { client } = await serve((_, n) =>
      n === 1
        ? EMPTY_204
        : { status: 201, body: '{"id":"sr_1","participant":{"participant_id":"pt_2","role":"HR"}}' },
    );
    const participant = {
      participant_type: 'observer' as const,
      role: 'HR',
      name: 'Bo',
      email: 'bo@example.com',
    };
    expect(expectOk(await run(client.addParticipant('sr_1', participant)))).toEqual({
      participantId: undefined,
    });
    expect(expectOk(await run(client.addParticipant('sr_1', participant)))).toEqual({
      participantId: 'pt_2',
    });
  });
});

describe('calls that need their body', () => {
  it.each<[string, (client: Client) => Promise<ServiceResult<unknown>>]>([
    ['an upload', (client: Client) => client.uploadDocument(pdfSource())],
    ['a widget session', (client: Client) => client.createWidgetSession('sr_1')],
    ['a read', (client: Client) => client.getSigningRequest('sr_1')],
  ])('%s answered 2xx without a readable body is invalid_response', async (_, call) => {
    const { client } = await serve(() => EMPTY_204);
    expect(expectFailure(await run(call(client)))).toMatchObject({
      code: 'invalid_response',
      retryable: false,
    });
  });
});

type Client = ReturnType<typeof makeTestClient>['client'];

const PDF = Buffer.from('%PDF-1.7\n%%EOF\n');
function pdfSource() {
  return { open: () => Readable.from([PDF]), sizeBytes: PDF.length, filename: 'a.pdf' };
}

describe('uploads read their bytes from the caller’s source', () => {
  it('opens a fresh stream for each attempt', async () => {
    const { client } = await serve((_, n) =>
      n === 1
        ? { status: 503, body: '{"error":{"code":"upstream_unavailable"}}', headers: { 'retry-after': '0' } }
        : {
            status: 201,
            body: JSON.stringify({
              upload_id: 'upl_1',
              filename: 'a.pdf',
              sha256: 'ab',
              size_bytes: PDF.length,
            }),
          },
    );
    let opened = 0;
    const source = { ...pdfSource(), open: () => ((opened += 1), Readable.from([PDF])) };
    expect(expectOk(await run(client.uploadDocument(source))).upload_id).toBe('upl_1');
    expect(opened).toBe(2);
  });

  it('a source that cannot be opened fails as local_file_changed, not retried', async () => {
    const { client, calls } = await serve(() => undefined);
    const source = {
      ...pdfSource(),
      open: (): Readable => {
        throw Object.assign(new Error('gone'), { code: 'ENOENT' });
      },
    };
    expect(expectFailure(await run(client.uploadDocument(source)))).toMatchObject({
      code: 'local_file_changed',
      retryable: false,
    });
    expect(calls('POST', '/api/v1/uploads')).toBe(0);
  });
});
