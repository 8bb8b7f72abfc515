/**
 * The command line and the address rule (main/client/base-url.ts): the client secret of the
 * environment or of a saved profile goes only to https, or http to this computer, without user
 * name, password, query or fragment. A `--base-url` that fails the rule, and a data folder whose
 * record of a batch's service fails it, are refused with a clear message, and the service
 * receives nothing, not even a token request. The command line runs in the test's process, on
 * the simulator's virtual clock (cli-in-process.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeLine, type JournalEntry } from '../../../main/store/journal';
import type { VirtualClock } from '../../../main/time/virtual-clock';
import { DEMO_CLIENT, type Simulator } from '../../../simulator/simulator';
import { runCliHere } from '../../support/cli-in-process';
import type { CliResult } from '../../support/cli-process';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { startVirtualSimulator } from '../../support/virtual-world';

const SAMPLE_MANIFEST = fileURLToPath(new URL('../../../samples/manifest.csv', import.meta.url));

const HTTP_ONLY_HERE =
  'The base URL must use https:// so the client secret is encrypted on the way; http:// is accepted only for this computer (localhost, 127.0.0.1 to 127.255.255.255, or [::1]).';
const CREDENTIALS =
  'The base URL cannot contain a user name or password; the client id and secret are entered separately.';
const QUERY = 'The base URL cannot contain a query (?…) or fragment (#…).';
const SCHEME = 'The base URL must start with https://, e.g. https://sign.example.com.';

let work: TempFolder;
let sim: Simulator;
let clock: VirtualClock;
/** The simulator's port, so that a refused address can name the very service that listens. */
let port: string;

beforeEach(async () => {
  work = makeTempFolder('desk-cli-address-');
  ({ sim, clock } = await startVirtualSimulator({ seed: 12 }));
  port = new URL(sim.baseUrl).port;
});

afterEach(async () => {
  await sim.close();
  work.remove();
});

function cli(args: readonly string[]): Promise<CliResult> {
  return runCliHere(args, { clock, credentials: DEMO_CLIENT });
}

describe('--base-url follows the address rule: a refused one exits 2, says why, and sends nothing', () => {
  const cases: readonly { name: string; address: () => string; message: string }[] = [
    {
      name: 'the client id and secret in the address, to the service itself',
      address: () => `http://${DEMO_CLIENT.clientId}:${DEMO_CLIENT.clientSecret}@127.0.0.1:${port}`,
      message: CREDENTIALS,
    },
    { name: 'a user name only', address: () => `http://user@127.0.0.1:${port}`, message: CREDENTIALS },
    {
      name: 'https with a user and password',
      address: () => 'https://a:b@sign.example.com',
      message: CREDENTIALS,
    },
    { name: 'a query', address: () => `${sim.baseUrl}/?q`, message: QUERY },
    { name: 'a fragment', address: () => `${sim.baseUrl}#f`, message: QUERY },
    {
      name: 'plain http to another computer',
      address: () => 'http://sign.example.com',
      message: HTTP_ONLY_HERE,
    },
    {
      name: 'localhost. (an absolute name, resolved by DNS)',
      address: () => `http://localhost.:${port}`,
      message: HTTP_ONLY_HERE,
    },
    { name: 'ftp://', address: () => 'ftp://sign.example.com', message: SCHEME },
    { name: 'javascript:', address: () => 'javascript:alert(1)', message: SCHEME },
    {
      name: 'a tab inside (the URL parser would drop it)',
      address: () => `http://127.0.0.1:\t${port}`,
      message: 'The base URL cannot contain spaces, tabs or line breaks.',
    },
    {
      name: 'an address of 3,000 characters',
      address: () => `${sim.baseUrl}/${'a'.repeat(3000 - sim.baseUrl.length - 1)}`,
      message:
        'The base URL is too long: 3,000 characters, at most 2,048 are accepted. A service address is much shorter, e.g. https://sign.example.com.',
    },
  ];

  it.each(cases)('send: $name', async ({ address, message }) => {
    const dataDir = work.file('data');
    const result = await cli(['send', SAMPLE_MANIFEST, '--base-url', address(), '--data-dir', dataDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`--base-url: ${message}\n`);
    expect(sim.state.calls()).toEqual([]);
    expect(existsSync(dataDir)).toBe(false);
  });

  it.each([
    ['watch', (dataDir: string) => ['watch', '--data-dir', dataDir]],
    [
      'resolve',
      (dataDir: string) => [
        'resolve',
        SAMPLE_MANIFEST,
        '--reference',
        'RH-2026-0142',
        '--send-new',
        '--confirm',
        '--data-dir',
        dataDir,
      ],
    ],
  ])('%s refuses the same way', async (_command, args) => {
    const dataDir = work.file('data');
    const result = await cli([...args(dataDir), '--base-url', `http://user:pw@127.0.0.1:${port}`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`--base-url: ${CREDENTIALS}\n`);
    expect(sim.state.calls()).toEqual([]);
  });

  it('an accepted spelling of this computer is sent to in its one spelling (http://0x7f000001 is 127.0.0.1)', async () => {
    const dataDir = work.file('data');
    const result = await cli([
      'send',
      SAMPLE_MANIFEST,
      '--base-url',
      `HTTP://0x7f000001:${port}/`,
      '--data-dir',
      dataDir,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Sending 3 documents of manifest.csv to http://127.0.0.1:${port}…`);
    expect(sim.state.calls().filter((call) => call.operation === 'token').length).toBeGreaterThan(0);
  }, 60_000);
});

/** Every journal and snapshot of the data folder's batches, each line rewritten by `change`, checksums made anew. */
function rewriteBatches(dataDir: string, change: (json: string) => string): void {
  const visit = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) visit(path);
      else if (name === 'journal.log' || name === 'snapshot.json') {
        const lines = readFileSync(path, 'utf8').split('\n');
        const rewritten = lines.map((line) => {
          if (line === '') return line;
          const entry = JSON.parse(change(line.slice(line.indexOf('\t') + 1))) as JournalEntry<unknown>;
          return encodeLine(entry).slice(0, -1);
        });
        writeFileSync(path, rewritten.join('\n'));
      }
    }
  };
  visit(join(dataDir, 'batches'));
}

describe('a data folder that records a refused address for a batch: nothing is sent there, nor anywhere for it', () => {
  /** Sends the sample to the simulator, then someone rewrites where the data folder says it went. */
  async function sentThenRecordedAs(
    recorded: () => string,
  ): Promise<{ dataDir: string; callsBefore: number }> {
    const dataDir = work.file('data');
    const sent = await cli(['send', SAMPLE_MANIFEST, '--base-url', sim.baseUrl, '--data-dir', dataDir]);
    expect(sent.code, sent.stderr).toBe(0);
    const bound = JSON.stringify({ baseUrl: sim.baseUrl }).slice(1, -1);
    let replaced = 0;
    rewriteBatches(dataDir, (json) => {
      if (!json.includes(bound)) return json;
      replaced += 1;
      return json.replaceAll(bound, JSON.stringify({ baseUrl: recorded() }).slice(1, -1));
    });
    expect(replaced).toBeGreaterThan(0);
    return { dataDir, callsBefore: sim.state.calls().length };
  }

  const refusedRecord = (message: string) =>
    `the data folder records that it was sent to a service address that is refused. ${message} Nothing is sent there: the data folder was changed outside the app and the command line; restore it from a backup.`;

  it.each([
    ['plain http to another computer', () => 'http://evil.example', HTTP_ONLY_HERE],
    [
      'the service’s own address with a user and password (the same service, once they are left out)',
      () => `http://attacker:x@127.0.0.1:${port}`,
      CREDENTIALS,
    ],
    ['the service’s own address with a query', () => `${sim.baseUrl}?x=`, QUERY],
  ])(
    '%s: watch cannot track it, says why, and reads nothing',
    async (_label, recorded, message) => {
      const { dataDir, callsBefore } = await sentThenRecordedAs(recorded);
      const watched = await cli(['watch', '--data-dir', dataDir, '--base-url', sim.baseUrl]);
      expect(watched.code).toBe(1);
      expect(watched.stderr).toBe(
        `Cannot track 3 open requests of manifest.csv at ${recorded()}: ${refusedRecord(message)}\n`,
      );
      expect(sim.state.calls()).toHaveLength(callsBefore);
    },
    60_000,
  );

  it('send of the same manifest refuses to continue the batch, says why, and sends nothing', async () => {
    const { dataDir, callsBefore } = await sentThenRecordedAs(() => `http://attacker:x@127.0.0.1:${port}`);
    const again = await cli(['send', SAMPLE_MANIFEST, '--base-url', sim.baseUrl, '--data-dir', dataDir]);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`Nothing was sent for manifest.csv: ${refusedRecord(CREDENTIALS)}\n`);
    expect(sim.state.calls()).toHaveLength(callsBefore);
  }, 60_000);
});
