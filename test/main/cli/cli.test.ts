import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { userMessage } from '../../../shared/service/error-catalog';
import {
  DEMO_CLIENT,
  startSimulator,
  type Simulator,
  type SimulatorClient,
} from '../../../simulator/simulator';
import { ALL_SCOPES } from '../../../simulator/types';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import {
  bundleCli,
  killAllCli,
  parseJsonLines,
  runCli,
  startCli,
  type CliCredentials,
  type CliResult,
  type JsonEvent,
} from '../../support/cli-process';
import { runCliHere } from '../../support/cli-in-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';

const SAMPLE_MANIFEST = fileURLToPath(new URL('../../../samples/manifest.csv', import.meta.url));
const SAMPLE_WITH_ERRORS = fileURLToPath(
  new URL('../../../samples/manifest-with-errors.csv', import.meta.url),
);
const SAMPLE_PDF = fileURLToPath(
  new URL('../../../samples/pdfs/Contrat de travail - Anne Dupré.pdf', import.meta.url),
);
/** The references of the sample manifest, one document each. */
const SAMPLE_REFERENCES = ['RH-2026-0142', 'NDA-2026-017', 'RH-2026-0143'];

let cliPath: string;
let bundleFolder: TempFolder;
let work: TempFolder;
let sim: Simulator;
let clock: VirtualClock;

beforeAll(async () => {
  bundleFolder = makeTempFolder('desk-cli-bundle-');
  cliPath = await bundleCli(bundleFolder.path);
}, 60_000);

beforeEach(async () => {
  work = makeTempFolder('desk-cli-');
  ({ sim, clock } = await startVirtualSimulator({ seed: 3 }));
});

afterEach(async () => {
  await killAllCli();
  await sim.close();
  work.remove();
});

afterAll(() => bundleFolder?.remove());

/**
 * The command line in the test's process, on the simulator's virtual clock (cli-in-process.ts):
 * the same parsing, commands and output as the process. Tests whose point is the process itself
 * (a killed run, two runs at once on one folder) start it as a child (`startCli`).
 */
function cli(
  args: readonly string[],
  credentials: CliCredentials | null = DEMO_CLIENT,
  env: Readonly<Record<string, string>> = {},
): Promise<CliResult> {
  return runCliHere(args, { clock, credentials, env });
}

/** For the tests of real processes: the simulator on this computer's time instead. */
async function serviceOnRealTime(): Promise<void> {
  await sim.close();
  sim = await startSimulator({ seed: 3 });
}

function sendArgs(dataDir: string, manifest = SAMPLE_MANIFEST, json = true): string[] {
  return ['send', manifest, '--base-url', sim.baseUrl, '--data-dir', dataDir, ...(json ? ['--json'] : [])];
}

function callsOf(operation: string): number {
  return sim.state.calls().filter((call) => call.operation === operation).length;
}

/** Every stdout line is one JSON object, and the last one is the summary. */
function jsonEvents(result: CliResult): JsonEvent[] {
  const events = parseJsonLines(result.stdout);
  expect(events.length).toBeGreaterThan(0);
  expect(events.filter((event) => event.type === 'summary')).toHaveLength(1);
  expect(events.at(-1)?.type, `the last --json line is the summary:\n${result.stdout}`).toBe('summary');
  return events;
}

function stderrLines(result: CliResult): string[] {
  return result.stderr.split('\n').filter((line) => line !== '');
}

describe('validate', () => {
  it('exits 0 on a valid manifest and says that nothing was sent', async () => {
    const result = await cli(['validate', SAMPLE_MANIFEST], null);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('Valid: 3 documents, 6 recipients.');
    expect(result.stdout).toContain('Nothing was sent');
  });

  it('exits 2 on an invalid manifest and lists every problem on stderr with its line and column', async () => {
    const result = await cli(['validate', SAMPLE_WITH_ERRORS], null);
    expect(result.code).toBe(2);
    const problems = stderrLines(result);
    // The sample's six mistakes: a bad e-mail, a role too long, a missing name, signing order 0,
    // locales that disagree within a document, and a PDF that does not exist.
    // Each by the row and column Excel shows: the column's letter, then its name.
    expect(
      problems.map((line) => /^row (\d+), column ([A-Z]+) \(([a-z_]+)\): /.exec(line)?.slice(1, 4)),
    ).toEqual([
      ['3', 'G', 'email'],
      ['4', 'E', 'role'],
      ['5', 'F', 'name'],
      ['6', 'H', 'signing_order'],
      ['7', 'K', 'locale'],
      ['8', 'A', 'document'],
    ]);
    expect(problems[5]).toContain('Marc Perrin.pdf');
    expect(result.stdout).toContain('Invalid: 6 problems. Fix them');
  });

  it('names the row Excel shows after a cell with line breaks, not the line of text', async () => {
    // The first role was typed with Alt+Enter: one row in Excel, three lines in the file.
    mkdirSync(join(work.path, 'pdfs'));
    copyFileSync(SAMPLE_PDF, join(work.path, 'pdfs', 'a.pdf'));
    const manifest = join(work.path, 'manifest.csv');
    writeFileSync(
      manifest,
      [
        'document;external_reference;participant_type;role;name;email',
        'pdfs/a.pdf;REF-1;signer;"Gérante\r\n(signature\r\nsociale)";Anne Dupré;anne@example.com',
        'pdfs/a.pdf;REF-1;signer;Salarié;Bob Martin;bob@example',
        '',
      ].join('\r\n'),
    );
    const result = await cli(['validate', manifest], null);
    expect(result.code).toBe(2);
    expect(stderrLines(result)).toEqual([
      'row 3, column F (email): must be a valid e-mail address (got "bob@example")',
    ]);
    const json = jsonEvents(await cli(['validate', manifest, '--json'], null));
    expect(json.filter((event) => event.type === 'issue')).toEqual([
      {
        type: 'issue',
        row: 3,
        column: 'email',
        columnLetter: 'F',
        message: 'must be a valid e-mail address (got "bob@example")',
      },
    ]);
  });

  it('with --json prints one JSON object per line: the issues, then a summary', async () => {
    const invalid = await cli(['validate', SAMPLE_WITH_ERRORS, '--json'], null);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toBe('');
    const events = jsonEvents(invalid);
    const issues = events.filter((event) => event.type === 'issue');
    expect(issues).toHaveLength(6);
    for (const issue of issues) {
      expect(issue).toEqual({
        type: 'issue',
        row: expect.any(Number),
        column: expect.any(String),
        columnLetter: expect.stringMatching(/^[A-Z]+$/),
        message: expect.any(String),
      });
    }
    expect(events.at(-1)).toMatchObject({ type: 'summary', valid: false, issues: 6 });

    const valid = await cli(['validate', SAMPLE_MANIFEST, '--json'], null);
    expect(valid.code).toBe(0);
    expect(jsonEvents(valid)).toEqual([
      { type: 'summary', valid: true, documents: 3, recipients: 6, issues: 0 },
    ]);
  });
});

describe('bad input: exit 2, nothing sent', () => {
  const cases: readonly { name: string; args: (dataDir: string) => string[]; message: string }[] = [
    {
      name: 'send without --data-dir',
      args: () => ['send', SAMPLE_MANIFEST, '--base-url', sim.baseUrl],
      message: '--data-dir',
    },
    {
      name: 'send without --base-url',
      args: (dataDir) => ['send', SAMPLE_MANIFEST, '--data-dir', dataDir],
      message: '--base-url',
    },
    {
      name: 'an unknown command',
      args: (dataDir) => ['publish', SAMPLE_MANIFEST, '--base-url', sim.baseUrl, '--data-dir', dataDir],
      message: 'Unknown command "publish"',
    },
    {
      name: '--concurrency 0',
      args: (dataDir) => [...sendArgs(dataDir, SAMPLE_MANIFEST, false), '--concurrency', '0'],
      message: '--concurrency must be at least 1',
    },
    {
      name: 'a --base-url that is not an http(s) address',
      args: (dataDir) => ['send', SAMPLE_MANIFEST, '--base-url', 'sign.example.com', '--data-dir', dataDir],
      message: '--base-url: The base URL must be a full address',
    },
    {
      name: 'a --base-url in plain http to another computer (the secret would travel unencrypted)',
      args: (dataDir) => [
        'send',
        SAMPLE_MANIFEST,
        '--base-url',
        'http://sign.example.com',
        '--data-dir',
        dataDir,
      ],
      message: '--base-url: The base URL must use https://',
    },
    {
      name: 'status without --data-dir',
      args: () => ['status'],
      message: '--data-dir',
    },
  ];

  it.each(cases)('$name', async ({ args, message }) => {
    const dataDir = work.file('data');
    const result = await cli(args(dataDir));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(sim.state.calls()).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('send refuses to start without SIGNING_CLIENT_ID and SIGNING_CLIENT_SECRET, naming both', async () => {
    const dataDir = work.file('data');
    for (const credentials of [null, { clientId: DEMO_CLIENT.clientId, clientSecret: '' }]) {
      const result = await cli(sendArgs(dataDir, SAMPLE_MANIFEST, false), credentials);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('SIGNING_CLIENT_ID');
      expect(result.stderr).toContain('SIGNING_CLIENT_SECRET');
    }
    expect(sim.state.calls()).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('send lists the manifest problems and sends nothing when the manifest is invalid', async () => {
    const dataDir = work.file('data');
    const result = await cli(sendArgs(dataDir, SAMPLE_WITH_ERRORS, false));
    expect(result.code).toBe(2);
    expect(stderrLines(result).filter((line) => /^row \d+, column [A-Z]+ \(/.test(line))).toHaveLength(6);
    expect(result.stderr).toContain('Nothing was sent');
    expect(sim.state.calls()).toEqual([]);

    const json = await cli(sendArgs(dataDir, SAMPLE_WITH_ERRORS, true));
    expect(json.code).toBe(2);
    const events = jsonEvents(json);
    expect(events.filter((event) => event.type === 'issue')).toHaveLength(6);
    expect(events.at(-1)).toMatchObject({ type: 'summary', sent: false, issues: 6 });
    expect(sim.state.calls()).toEqual([]);
  });
});

describe('send', () => {
  it('sends every document once; the same command again creates nothing more', async () => {
    const dataDir = work.file('data');
    const first = await cli(sendArgs(dataDir));
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const events = jsonEvents(first);
    expect(events.at(-1)).toMatchObject({
      type: 'summary',
      state: 'finished',
      prepared: 3,
      failed: 0,
      total: 3,
    });
    const preparedEvents = events.filter(
      (event) => event.type === 'item-progress' && event.phase === 'prepared',
    );
    expect(preparedEvents.map((event) => event.externalReference).sort()).toEqual(
      [...SAMPLE_REFERENCES].sort(),
    );
    expect(sim.state.countByExternalReference()).toEqual(
      Object.fromEntries(SAMPLE_REFERENCES.map((reference) => [reference, 1])),
    );
    expect(sim.state.requests().every((request) => request.status === 'prepared')).toBe(true);

    const creates = callsOf('createSigningRequest');
    const uploads = callsOf('upload');
    const second = await cli(sendArgs(dataDir, SAMPLE_MANIFEST, false));
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('3 of 3 documents prepared, 0 failed.');
    expect(callsOf('createSigningRequest')).toBe(creates);
    expect(callsOf('upload')).toBe(uploads);
    expect(sim.state.countByExternalReference()).toEqual(
      Object.fromEntries(SAMPLE_REFERENCES.map((reference) => [reference, 1])),
    );

    const status = await cli(['status', '--data-dir', dataDir, '--json'], null);
    expect(status.code).toBe(0);
    const rows = jsonEvents(status);
    const documents = rows.filter((row) => row.type === 'document');
    expect(documents.map((row) => row.externalReference).sort()).toEqual([...SAMPLE_REFERENCES].sort());
    const requestIds = new Set(sim.state.requests().map((request) => request.id));
    for (const row of documents) {
      expect(row.phase).toBe('prepared');
      expect(row.class).toBe('waiting');
      expect(requestIds.has(String(row.requestId))).toBe(true);
    }
    expect(rows.at(-1)).toEqual({
      type: 'summary',
      documents: 3,
      prepared: 3,
      waiting: 3,
      completed: 0,
      ended: 0,
      unknownStatus: 0,
      failed: 0,
      needsCheck: 0,
      gone: 0,
      sending: 0,
      notSent: 0,
    });
  });

  it('exits 1 when documents fail, listing each with the message of the error catalog', async () => {
    // A client the service lets create requests but not prepare them (no ceremony.create).
    const limited: SimulatorClient = {
      clientId: 'desk-without-ceremony',
      clientSecret: 'limited-client-secret',
      scopes: ALL_SCOPES.filter((scope) => scope !== 'ceremony.create'),
    };
    sim.addClient(limited);
    const dataDir = work.file('data');
    const result = await cli(sendArgs(dataDir, SAMPLE_MANIFEST, false), limited);
    expect(result.code).toBe(1);
    const message = userMessage('prepare_forbidden');
    expect(message).toContain('ceremony.create');
    for (const reference of SAMPLE_REFERENCES) expect(result.stdout).toContain(`✗ ${reference}: ${message}`);
    expect(result.stdout).toContain('0 of 3 documents prepared, 3 failed.');
    expect(sim.state.calls().some((call) => call.operation === 'prepare' && call.status === 403)).toBe(true);

    const status = await cli(['status', '--data-dir', dataDir, '--json'], null);
    const rows = jsonEvents(status);
    for (const row of rows.filter((r) => r.type === 'document')) {
      expect(row).toMatchObject({ phase: 'failed', error: message });
    }
    expect(rows.at(-1)).toMatchObject({ documents: 3, prepared: 0, failed: 3 });
  });

  it('refuses to send when a batch of the data folder is damaged (exit 2), so nothing can go twice', async () => {
    await serviceOnRealTime();
    const dataDir = work.file('data');
    // Preparation never succeeds, so the run is still busy when it is killed.
    sim.faults.set({ rate503: 1, pathPattern: '/prepare$' });
    const partial = startCli(cliPath, sendArgs(dataDir), { credentials: DEMO_CLIENT });
    while (sim.state.requests().length < SAMPLE_REFERENCES.length && partial.running()) await sleep(20);
    expect(
      partial.running(),
      `the run ended before it was killed:\n${partial.stdout()}\n${partial.stderr()}`,
    ).toBe(true);
    await partial.kill();
    sim.faults.reset();
    const [batchFolder] = readdirSync(join(dataDir, 'batches'));
    const journal = join(dataDir, 'batches', String(batchFolder), 'journal.log');
    // One byte changed in the middle of the journal: damage no checksum forgives.
    const lines = readFileSync(journal, 'utf8').split('\n');
    lines[1] = String(lines[1]).replace('"seq":2', '"seq":9');
    writeFileSync(journal, lines.join('\n'));

    const result = await runCli(cliPath, sendArgs(dataDir, SAMPLE_MANIFEST, false), {
      credentials: DEMO_CLIENT,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `Batch ${batchFolder} cannot be read (the line fails its checksum, ${journal} line 2)`,
    );
    expect(result.stderr).toContain('Nothing was sent: a batch in this data folder cannot be read');
    expect(sim.state.countByExternalReference()).toEqual(
      Object.fromEntries(SAMPLE_REFERENCES.map((reference) => [reference, 1])),
    );
    expect(readdirSync(join(dataDir, 'batches'))).toEqual([batchFolder]);
  }, 60_000);

  it('refuses a data folder that another running process is using (exit 2), naming that process', async () => {
    await serviceOnRealTime();
    const dataDir = work.file('data');
    // Slow answers keep the first run busy while the second one starts.
    sim.faults.set({ latencyMs: 1_000 });
    const first = startCli(cliPath, sendArgs(dataDir), { credentials: DEMO_CLIENT });
    const ownerFile = join(dataDir, 'lock-owner.json');
    while (!first.stdout().includes('"type":"engine-state"')) {
      if (!first.running()) throw new Error(`the first run ended early:\n${first.stdout()}${first.stderr()}`);
      await sleep(20);
    }
    expect(JSON.parse(readFileSync(ownerFile, 'utf8'))).toMatchObject({ pid: first.pid });

    const second = await runCli(cliPath, sendArgs(dataDir, SAMPLE_MANIFEST, false), {
      credentials: DEMO_CLIENT,
    });
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('in use by another process');
    expect(second.stderr).toContain(`pid ${first.pid} on this computer, running since `);
    expect(first.running()).toBe(true);
    expect(second.stdout).not.toContain('Sending');

    const finished = await first.done;
    expect(finished.code).toBe(0);
    expect(sim.state.countByExternalReference()).toEqual(
      Object.fromEntries(SAMPLE_REFERENCES.map((reference) => [reference, 1])),
    );
  }, 60_000);
});

describe('status', () => {
  it('reports an empty data folder as zero documents', async () => {
    const dataDir = work.file('data');
    mkdirSync(dataDir);
    const result = await cli(['status', '--data-dir', dataDir], null);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('0 documents: 0 prepared, 0 completed, 0 failed, 0 gone.');

    const json = await cli(['status', '--data-dir', dataDir, '--json'], null);
    expect(json.code).toBe(0);
    expect(jsonEvents(json)).toEqual([
      {
        type: 'summary',
        documents: 0,
        prepared: 0,
        waiting: 0,
        completed: 0,
        ended: 0,
        unknownStatus: 0,
        failed: 0,
        needsCheck: 0,
        gone: 0,
        sending: 0,
        notSent: 0,
      },
    ]);
    expect(sim.state.calls()).toEqual([]);
  });
});

/** `watch` runs in the test's process, on the simulator's virtual clock: its reads take no real time. */
describe('watch', () => {
  beforeEach(async () => {
    await sim.close();
    ({ sim, clock } = await startVirtualSimulator({ seed: 3, evidenceDelayMs: 60_000 }));
  });

  it('shows each status change by reference while it watches', async () => {
    // Evidence that takes a minute after the last signature (watch's first reads wait 5 s).
    const dataDir = work.file('data');
    expect((await cli(sendArgs(dataDir))).code).toBe(0);
    // Signed, but the evidence is not ready yet (the service's clock has not moved on).
    const nda = sim.state.requests().find((request) => request.externalReference === 'NDA-2026-017');
    sim.complete(nda!.id);
    // Once watch has said so, the others sign too: watch then ends with every request completed.
    const lines: string[] = [];
    const watched = await runCliHere(['watch', '--data-dir', dataDir, '--base-url', sim.baseUrl], {
      clock,
      credentials: DEMO_CLIENT,
      onStdoutLine: (line) => {
        lines.push(line);
        if (line.includes('NDA-2026-017: completed, evidence not ready yet'))
          for (const request of sim.state.requests()) if (request.id !== nda!.id) sim.complete(request.id);
      },
    });
    expect(watched.code, watched.stdout + watched.stderr).toBe(0);
    const notReady = lines.findIndex((line) =>
      line.includes('NDA-2026-017: completed, evidence not ready yet'),
    );
    const ready = lines.findIndex((line) => line.includes('NDA-2026-017: completed, evidence ready'));
    expect(notReady).toBeGreaterThanOrEqual(0);
    expect(ready).toBeGreaterThan(notReady);
  });

  it('exits 0 once every request is completed, with a line per completed reference', async () => {
    const dataDir = work.file('data');
    const sent = await cli(sendArgs(dataDir));
    expect(sent.code).toBe(0);
    // Every signer signs; the evidence is ready once the service's clock has moved on.
    for (const request of sim.state.requests()) sim.complete(request.id);
    await clock.advance(60_000);

    const watched = await cli(['watch', '--data-dir', dataDir, '--base-url', sim.baseUrl]);
    expect(watched.stderr).toBe('');
    expect(watched.code).toBe(0);
    for (const reference of SAMPLE_REFERENCES) {
      expect(watched.stdout).toContain(`✓ ${reference}: completed, evidence ready`);
    }
    expect(watched.stdout).toContain('Every request is final.');

    const status = await cli(['status', '--data-dir', dataDir, '--json'], null);
    expect(jsonEvents(status).at(-1)).toMatchObject({ documents: 3, completed: 3 });
    // Progress lines name the contract by its reference, never by an internal id.
    const documentIds = jsonEvents(status)
      .filter((row) => row.type === 'document')
      .map((row) => String(row.documentId));
    for (const id of documentIds) expect(watched.stdout).not.toContain(id);

    // Nothing is left to watch: it ends at once, with JSON lines when asked.
    const again = await cli(['watch', '--data-dir', dataDir, '--json']);
    expect(again.code).toBe(0);
    expect(jsonEvents(again).at(-1)).toEqual({
      type: 'summary',
      open: 0,
      gone: 0,
      ended: 0,
      unknownStatus: 0,
    });
  });
});

describe('the client secret', () => {
  /** Every file under `folder`, recursively. */
  function filesUnder(folder: string): string[] {
    return readdirSync(folder).flatMap((name) => {
      const path = join(folder, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    });
  }

  it('never appears in what any command prints, nor in any file of the data folder', async () => {
    const client: SimulatorClient = {
      clientId: 'desk-secret-check',
      clientSecret: `Sx-${Date.now().toString(36)}-never-print-me`,
      scopes: [...ALL_SCOPES],
    };
    sim.addClient(client);
    const wrongSecret = `Wx-${Date.now().toString(36)}-wrong-one`;
    const dataDir = work.file('data');
    const verbose = { DESK_LOG: 'json' };
    const results: CliResult[] = [];

    // Retries, dropped answers and a token revoked once the first upload is done (every later
    // call, the prepares at least, meets a 401) make the client log warnings and renew its token.
    sim.faults.set({ rate503: 0.2, retryAfterSeconds: 0, dropAfterRate: 0.1, latencyMs: 100 });
    let revoked = false;
    const sent = await runCliHere(sendArgs(dataDir), {
      clock,
      credentials: client,
      env: verbose,
      onStdoutLine: (line) => {
        if (!revoked && line.includes('"phase":"creating"')) {
          revoked = true;
          sim.revokeTokens();
        }
      },
    });
    results.push(sent);
    // A dropped answer may leave a creation's outcome unknown: such a document waits for the
    // user's check (exit 1) rather than fail or be sent twice.
    const sentSummary = parseJsonLines(sent.stdout).at(-1);
    expect(sentSummary, sent.stdout.slice(-3_000)).toMatchObject({
      type: 'summary',
      state: 'finished',
      failed: 0,
    });
    expect(sent.code).toBe(sentSummary?.needsCheck === 0 ? 0 : 1);
    // The diagnostics really were printed (and scanned below).
    expect(sent.stderr).toContain('"level":"warn"');
    sim.faults.reset();
    expect(sim.state.calls().some((call) => call.status === 401)).toBe(true);

    results.push(await cli(sendArgs(dataDir, SAMPLE_MANIFEST, false), client, verbose));
    results.push(await cli(['status', '--data-dir', dataDir], client, verbose));
    // Every prepared request is signed (one whose document waits for the user's check is not).
    for (const request of sim.state.requests()) if (request.status === 'prepared') sim.complete(request.id);
    await clock.advance(60_000);
    results.push(
      await cli(['watch', '--data-dir', dataDir, '--json', '--base-url', sim.baseUrl], client, verbose),
    );
    results.push(await cli(['validate', SAMPLE_WITH_ERRORS], client, verbose));
    results.push(await cli(['send', SAMPLE_MANIFEST, '--data-dir', dataDir], client, verbose));

    // A wrong secret is refused by the service; it is not printed either.
    const rejected = await cli(
      sendArgs(work.file('other-data'), SAMPLE_MANIFEST, false),
      { clientId: client.clientId, clientSecret: wrongSecret },
      verbose,
    );
    expect(rejected.code).not.toBe(0);
    expect(rejected.stderr).toContain(
      'The service rejected the connection credentials. Check SIGNING_CLIENT_ID and SIGNING_CLIENT_SECRET, then run the same command again.',
    );
    results.push(rejected);

    const secrets = [client.clientSecret, wrongSecret];
    for (const result of results) {
      for (const secret of secrets) {
        expect(result.stdout).not.toContain(secret);
        expect(result.stderr).not.toContain(secret);
      }
    }
    const scanned = [...filesUnder(dataDir), ...filesUnder(work.file('other-data'))];
    expect(scanned.length).toBeGreaterThan(3);
    for (const path of scanned) {
      const bytes = readFileSync(path);
      for (const secret of secrets) expect(bytes.includes(secret), path).toBe(false);
    }
  }, 60_000);
});
