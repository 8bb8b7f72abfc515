import { parseArgs } from 'node:util';
import { z } from 'zod';

export const USAGE = `Usage:
  npm run cli -- validate MANIFEST
  npm run cli -- send MANIFEST (--base-url URL | --profile NAME) --data-dir DIR [--concurrency N] [--json]
  npm run cli -- status --data-dir DIR [--json]
  npm run cli -- watch --data-dir DIR [--base-url URL | --profile NAME] [--json]

Credentials come from SIGNING_CLIENT_ID and SIGNING_CLIENT_SECRET, or from a connection
saved in the app (--profile NAME: settings in DIR/profiles.json, secret in the OS keychain).`;

const commandSchema = z.enum(['validate', 'send', 'status', 'watch']);

const optionsSchema = z.object({
  'base-url': z
    .url({
      protocol: /^https?$/,
      message: '--base-url must be an http(s) address, e.g. https://sign.example.com',
    })
    .optional(),
  'data-dir': z.string().min(1).optional(),
  concurrency: z
    .string()
    .regex(/^\d+$/, '--concurrency must be a whole number')
    .transform(Number)
    .pipe(
      z.number().int().min(1, '--concurrency must be at least 1').max(16, '--concurrency must be at most 16'),
    )
    .optional(),
  json: z.boolean().optional(),
  profile: z.string().min(1).optional(),
  help: z.boolean().optional(),
});

export interface CliArgs {
  readonly command: z.infer<typeof commandSchema>;
  readonly manifest: string | undefined;
  readonly baseUrl: string | undefined;
  readonly dataDir: string | undefined;
  readonly concurrency: number | undefined;
  readonly json: boolean;
  readonly profile: string | undefined;
}

export type ParsedArgs =
  | { readonly ok: true; readonly args: CliArgs }
  | { readonly ok: false; readonly message: string; readonly json: boolean };

/** Parses the command line once, into typed arguments or one clear message. */
export function parseCliArgs(argv: readonly string[]): ParsedArgs {
  const json = argv.includes('--json');
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        'base-url': { type: 'string' },
        'data-dir': { type: 'string' },
        concurrency: { type: 'string' },
        json: { type: 'boolean' },
        profile: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return { ok: false, json, message: `${(error as Error).message}\n\n${USAGE}` };
  }
  if (parsed.values.help || parsed.positionals.length === 0) return { ok: false, json, message: USAGE };
  const [commandText, ...rest] = parsed.positionals;
  const command = commandSchema.safeParse(commandText);
  if (!command.success) return { ok: false, json, message: `Unknown command "${commandText}".\n\n${USAGE}` };
  const options = optionsSchema.safeParse(parsed.values);
  if (!options.success)
    return { ok: false, json, message: options.error.issues.map((issue) => issue.message).join('\n') };
  const needsManifest = command.data === 'validate' || command.data === 'send';
  if (needsManifest && rest.length !== 1)
    return { ok: false, json, message: `${command.data} needs one MANIFEST path.\n\n${USAGE}` };
  if (!needsManifest && rest.length > 0)
    return { ok: false, json, message: `${command.data} takes no positional argument.\n\n${USAGE}` };
  const values = options.data;
  if (command.data !== 'validate' && !values['data-dir'])
    return { ok: false, json, message: `${command.data} needs --data-dir DIR.` };
  if (command.data === 'send' && !values['base-url'] && !values.profile) {
    return { ok: false, json, message: 'send needs --base-url URL (or --profile NAME).' };
  }
  return {
    ok: true,
    args: {
      command: command.data,
      manifest: rest[0],
      baseUrl: values['base-url'],
      dataDir: values['data-dir'],
      concurrency: values.concurrency,
      json: values.json === true,
      profile: values.profile,
    },
  };
}
