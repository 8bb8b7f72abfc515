/** The browser host's command line: `[--port N] [--data-dir DIR] [--no-open]`. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { err, ok, type Result } from '../../shared/base/result';

export const HOST_USAGE = `Usage: node dist/browser-host/index.js [--port N] [--data-dir DIR] [--no-open]

  --port N          listen on 127.0.0.1:N (default: any free port)
  --data-dir DIR    the data folder (default: $XDG_DATA_HOME/signing-batch-desk,
                    else ~/.local/share/signing-batch-desk)
  --no-open         only print the address; do not open a Chromium window`;

export interface HostArgs {
  readonly port: number;
  readonly dataDir: string;
  readonly open: boolean;
  readonly help: boolean;
}

/** The arguments, or what is wrong with them in a sentence. */
export type HostArgsParse = Result<HostArgs, string>;

/** The default data folder, following the XDG base directory rules. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const dataHome = env.XDG_DATA_HOME?.startsWith('/') ? env.XDG_DATA_HOME : join(home, '.local', 'share');
  return join(dataHome, 'signing-batch-desk');
}

/** Parses the arguments; a bad one is reported as a sentence, never thrown. */
export function parseHostArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): HostArgsParse {
  let values: { port?: string; 'data-dir'?: string; 'no-open'?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        'no-open': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return err(error instanceof Error ? error.message : String(error));
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!/^\d{1,5}$/.test(values.port ?? '0') || port > 65_535) {
    return err(`--port must be a number from 0 to 65535 (got "${values.port}").`);
  }
  const dataDir = values['data-dir'];
  if (dataDir !== undefined && dataDir.trim() === '') return err('--data-dir needs a folder.');
  return ok({
    port,
    dataDir: dataDir === undefined ? defaultDataDir(env, home) : resolve(dataDir),
    open: values['no-open'] !== true,
    help: values.help === true,
  });
}
