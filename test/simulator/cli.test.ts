import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchJson } from './test-support';

const CLI = fileURLToPath(new URL('../../simulator/cli.ts', import.meta.url));
/**
 * The simulator's command in one process, as `npm run simulator` runs it: the Node running the
 * tests with tsx's loader. (tsx's own launcher runs the script in a child and relays a signal it
 * gets, waiting 30 ms for the child to say it has it: on a busy machine it then kills the child and
 * exits 143, so a SIGTERM would test tsx's timing rather than the simulator's stop.)
 */
const NODE_WITH_TSX = ['--import', 'tsx', CLI];

let child: ChildProcessWithoutNullStreams | undefined;

afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

/**
 * Starts the CLI and resolves with its stdout as soon as `ready` matches it (checked on every
 * chunk it prints). Rejects if it exits first, or has not printed it after 20 s: a guard against
 * a broken start, not a measure of time.
 */
async function startCli(
  args: string[],
  ready: RegExp,
): Promise<{ process: ChildProcessWithoutNullStreams; output: () => string }> {
  const started = spawn(process.execPath, [...NODE_WITH_TSX, ...args], { stdio: 'pipe' });
  child = started;
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error(`cli did not start; output: ${stdout}`)), 20_000);
    started.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (ready.test(stdout)) {
        clearTimeout(guard);
        resolve();
      }
    });
    started.once('exit', (code) => {
      clearTimeout(guard);
      reject(new Error(`cli exited early with ${code}`));
    });
  });
  return { process: started, output: () => stdout };
}

/** Runs the CLI to its end (one that refuses its options); resolves with its exit code and stderr. */
async function runCliToExit(args: string[]): Promise<{ exitCode: number | null; stderr: string }> {
  const started = spawn(process.execPath, [...NODE_WITH_TSX, ...args], { stdio: 'pipe' });
  child = started;
  let stderr = '';
  started.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const [exitCode] = (await once(started, 'exit')) as [number | null];
  return { exitCode, stderr };
}

describe('npm run simulator (cli.ts)', () => {
  it('--json prints one line for scripts, serves the API, and stops cleanly on SIGTERM', async () => {
    const cli = await startCli(['--port', '0', '--json'], /\n/);
    const line = cli.output().trim();
    const info = JSON.parse(line) as { baseUrl: string; clientId: string; clientSecret: string };
    expect(info).toEqual({
      baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      clientId: 'demo-desk',
      clientSecret: 'demo-desk-secret',
    });
    const token = await fetchJson(`${info.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: info.clientId,
        client_secret: info.clientSecret,
      }).toString(),
    });
    expect(token.status).toBe(200);
    cli.process.kill('SIGTERM');
    const [exitCode] = (await once(cli.process, 'exit')) as [number | null];
    expect(exitCode).toBe(0);
  });

  it('prints a friendly banner and applies --fail-rate and --latency-ms', async () => {
    const cli = await startCli(['--port', '0', '--fail-rate', '1', '--latency-ms', '10'], /Ctrl\+C/);
    const banner = cli.output();
    expect(banner).toContain('demo-desk');
    expect(banner).toContain('demo-desk-secret');
    expect(banner).toContain('/__simulator/state');
    const baseUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? '';
    const answer = await fetchJson(`${baseUrl}/oauth/token`, { method: 'POST' });
    expect(answer.status).toBe(503);
    cli.process.kill('SIGINT');
    const [exitCode] = (await once(cli.process, 'exit')) as [number | null];
    expect(exitCode).toBe(0);
  });

  it('--token-refusal-rate refuses token requests as during a key rotation', async () => {
    const cli = await startCli(['--port', '0', '--json', '--token-refusal-rate', '1'], /\n/);
    const { baseUrl } = JSON.parse(cli.output().trim()) as { baseUrl: string };
    const answer = await fetchJson(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=demo-desk&client_secret=demo-desk-secret',
    });
    expect([answer.status, answer.body.error]).toEqual([400, 'invalid_grant']);
    const state = await fetchJson(`${baseUrl}/__simulator/state`);
    expect(state.body.faults).toMatchObject({ tokenRefusalRate: 1, tokenRefusalCode: 'invalid_grant' });
    cli.process.kill('SIGTERM');
    await once(cli.process, 'exit');
  });

  it('--upload-mbit throttles uploads and says so in the banner and the control API', async () => {
    const cli = await startCli(['--port', '0', '--upload-mbit', '20'], /Ctrl\+C/);
    expect(cli.output()).toContain('Uplink          20 Mbit/s for uploads');
    const baseUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(cli.output())?.[1] ?? '';
    const state = await fetchJson(`${baseUrl}/__simulator/state`);
    expect(state.body.uplink).toEqual({
      mbit: 20,
      perConnectionMbit: null,
      stalledForMs: 0,
      receivedBytes: 0,
      connections: [],
    });
    cli.process.kill('SIGTERM');
    await once(cli.process, 'exit');
  });

  it('--upload-mbit-per-connection gives each connection its own line, said in the banner and the control API', async () => {
    const cli = await startCli(['--port', '0', '--upload-mbit-per-connection', '0.5'], /Ctrl\+C/);
    expect(cli.output()).toContain('Per connection  0.5 Mbit/s for uploads, each connection its own line');
    expect(cli.output()).not.toContain('all connections together');
    const baseUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(cli.output())?.[1] ?? '';
    const state = await fetchJson(`${baseUrl}/__simulator/state`);
    expect(state.body.uplink).toMatchObject({ mbit: null, perConnectionMbit: 0.5 });
    cli.process.kill('SIGTERM');
    await once(cli.process, 'exit');
  });

  it('--silent-rate makes API calls go silent', async () => {
    const cli = await startCli(['--port', '0', '--json', '--silent-rate', '1'], /\n/);
    const { baseUrl } = JSON.parse(cli.output().trim()) as { baseUrl: string };
    const silent = new AbortController();
    const call = fetch(`${baseUrl}/oauth/token`, { method: 'POST', signal: silent.signal });
    let state = await fetchJson(`${baseUrl}/__simulator/state?calls=1`);
    while (state.body.calls.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      state = await fetchJson(`${baseUrl}/__simulator/state?calls=1`);
    }
    expect(state.body.faults).toMatchObject({ silentRate: 1 });
    expect(state.body.calls).toEqual([
      expect.objectContaining({ path: '/oauth/token', status: null, fault: 'silent' }),
    ]);
    silent.abort();
    await expect(call).rejects.toThrow();
    cli.process.kill('SIGTERM');
    const [exitCode] = (await once(cli.process, 'exit')) as [number | null];
    expect(exitCode).toBe(0);
  });

  it('--variant plays the named variant and says so in the banner', async () => {
    const cli = await startCli(['--port', '0', '--variant', 'terse-token'], /Ctrl\+C/);
    expect(cli.output()).toContain('Variant         terse-token: upload 201');
    const baseUrl = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(cli.output())?.[1] ?? '';
    const token = await fetchJson(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=demo-desk&client_secret=demo-desk-secret',
    });
    expect(token.status).toBe(200);
    expect(token.body).not.toHaveProperty('expires_in');
    const state = await fetchJson(`${baseUrl}/__simulator/state`);
    expect(state.body.variant.name).toBe('terse-token');
    cli.process.kill('SIGTERM');
    await once(cli.process, 'exit');
  });

  it('exits with 2 on an unknown variant, listing the names', async () => {
    const { exitCode, stderr } = await runCliToExit(['--variant', 'nope']);
    expect(exitCode).toBe(2);
    expect(stderr).toContain('unknown service variant "nope"');
    expect(stderr).toContain('reference, strict-24h');
  });

  it('exits with 2 on a port in use, saying so and how to choose another', async () => {
    const first = await startCli(['--port', '0', '--json'], /\n/);
    const { baseUrl } = JSON.parse(first.output().trim()) as { baseUrl: string };
    const port = new URL(baseUrl).port;
    const second = spawn(process.execPath, [...NODE_WITH_TSX, '--port', port], { stdio: 'pipe' });
    let stderr = '';
    second.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const [exitCode] = (await once(second, 'exit')) as [number | null];
    expect(exitCode).toBe(2);
    expect(stderr.trim()).toBe(
      `simulator: port ${port} on 127.0.0.1 is already in use (another simulator, or another program). ` +
        'Choose another with --port N, or --port 0 for a free one (the address is printed).',
    );
    first.process.kill('SIGTERM');
    await once(first.process, 'exit');
  });

  it('exits with 2 on an invalid option', async () => {
    const { exitCode } = await runCliToExit(['--fail-rate', '3']);
    expect(exitCode).toBe(2);
  });

  it('refuses an uplink too slow to play, naming the option as typed', async () => {
    // 1e-12 Mbit/s: each chunk's wait would pass setTimeout's limit and become 1 ms (no limit).
    const { exitCode, stderr } = await runCliToExit(['--upload-mbit', '1e-12']);
    expect(exitCode).toBe(2);
    expect(stderr).toContain('--upload-mbit');
    expect(stderr).toContain('0.001');
    const perConnection = await runCliToExit(['--upload-mbit-per-connection', '0']);
    expect(perConnection.exitCode).toBe(2);
    expect(perConnection.stderr).toContain('--upload-mbit-per-connection');
  });
});
