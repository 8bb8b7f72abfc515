import { parseArgs } from 'node:util';
import { z } from 'zod';
import { err, ok, type Result } from '../../shared/base/result';
import { checkBaseUrl } from '../client/base-url';
import { KEY_RETENTION_HOURS_MAX, KEY_RETENTION_HOURS_MIN } from '../../shared/domain/key-retention';

export const USAGE = `Usage:
  npm run cli -- validate MANIFEST
  npm run cli -- send MANIFEST (--base-url URL | --profile NAME) --data-dir DIR [--concurrency N] [--json]
                 [--continue-batch | --send-new --confirm] [--key-retention-hours H]
  npm run cli -- resolve MANIFEST --reference REF (--link REQUEST_ID [--confirm] | --send-new --confirm)
                 (--base-url URL | --profile NAME) --data-dir DIR [--json]
  npm run cli -- status --data-dir DIR [--json]
  npm run cli -- watch --data-dir DIR [--base-url URL | --profile NAME] [--json]

Credentials come from SIGNING_CLIENT_ID and SIGNING_CLIENT_SECRET, or from a connection
saved in the app (--profile NAME: settings in DIR/profiles.json, secret in the OS keychain).
resolve answers a document that needs your check: --link the request the service already
holds for it (its reference is checked), or --send-new to send it as a new request on purpose.
send never sends a contract the data folder already sent: a moved or renamed manifest continues
its batch; for a copy, --continue-batch continues that batch from this manifest, and
--send-new --confirm sends its contracts anew on purpose (a second request each).`;

const commandSchema = z.enum(['validate', 'send', 'resolve', 'status', 'watch']);

const optionsSchema = z.object({
  // The same rule and spelling as a saved connection's address, so a batch sent from here
  // matches the profile for that service (https, or http only to this computer).
  'base-url': z
    .string()
    .transform((text, context) => {
      const checked = checkBaseUrl(text);
      if (checked.ok) return checked.value;
      context.addIssue({ code: 'custom', message: `--base-url: ${checked.error}` });
      return z.NEVER;
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
  reference: z.string().trim().min(1, '--reference must not be empty').optional(),
  link: z.string().trim().min(1, '--link needs the request id').optional(),
  'send-new': z.boolean().optional(),
  'continue-batch': z.boolean().optional(),
  'key-retention-hours': z
    .string()
    .regex(/^\d+(\.\d+)?$/, '--key-retention-hours must be a number of hours, such as 24')
    .transform(Number)
    .pipe(
      z
        .number()
        .min(KEY_RETENTION_HOURS_MIN, `--key-retention-hours must be at least ${KEY_RETENTION_HOURS_MIN}`)
        .max(KEY_RETENTION_HOURS_MAX, `--key-retention-hours must be at most ${KEY_RETENTION_HOURS_MAX}`),
    )
    .optional(),
  confirm: z.boolean().optional(),
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
  /** `resolve`: the document's external reference, and the chosen answer. */
  readonly reference: string | undefined;
  readonly link: string | undefined;
  readonly sendNew: boolean;
  /** `send`: continue the batch that already holds this manifest's contracts, from this manifest's path. */
  readonly continueBatch: boolean;
  /** `send`, `resolve`: how long the service keeps Idempotency-Keys, as its operator states it (hours). */
  readonly keyRetentionHours: number | undefined;
  /**
   * `resolve --link … --confirm`: link although the service does not show the request's
   * reference; `resolve --send-new --confirm`: the user looked and found no request.
   */
  readonly confirm: boolean;
}

/** Why the command line was not taken, and whether to say it as JSON (`--json` was there). */
export interface ArgsRefusal {
  readonly message: string;
  readonly json: boolean;
  /** The usage was asked for (`--help`, `-h`): an answer, not a mistake. */
  readonly help?: true;
}

export type ParsedArgs = Result<CliArgs, ArgsRefusal>;

/** Parses the command line once, into typed arguments or one clear message. */
export function parseCliArgs(argv: readonly string[]): ParsedArgs {
  const json = argv.includes('--json');
  const refused = (message: string): ParsedArgs => err({ message, json });
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
        reference: { type: 'string' },
        link: { type: 'string' },
        'send-new': { type: 'boolean' },
        'continue-batch': { type: 'boolean' },
        'key-retention-hours': { type: 'string' },
        confirm: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    return refused(`${(error as Error).message}\n\n${USAGE}`);
  }
  if (parsed.values.help) return err({ message: USAGE, json, help: true });
  if (parsed.positionals.length === 0) return refused(USAGE);
  const [commandText, ...rest] = parsed.positionals;
  const command = commandSchema.safeParse(commandText);
  if (!command.success) return refused(`Unknown command "${commandText}".\n\n${USAGE}`);
  const options = optionsSchema.safeParse(parsed.values);
  if (!options.success) return refused(options.error.issues.map((issue) => issue.message).join('\n'));
  const needsManifest = command.data === 'validate' || command.data === 'send' || command.data === 'resolve';
  if (needsManifest && rest.length !== 1)
    return refused(`${command.data} needs one MANIFEST path.\n\n${USAGE}`);
  if (!needsManifest && rest.length > 0)
    return refused(`${command.data} takes no positional argument.\n\n${USAGE}`);
  const values = options.data;
  if (command.data !== 'validate' && !values['data-dir'])
    return refused(`${command.data} needs --data-dir DIR.`);
  if ((command.data === 'send' || command.data === 'resolve') && !values['base-url'] && !values.profile) {
    return refused(`${command.data} needs --base-url URL (or --profile NAME).`);
  }
  if (command.data === 'resolve') {
    if (!values.reference) return refused('resolve needs --reference REF (the document to resolve).');
    if (Boolean(values.link) === (values['send-new'] === true))
      return refused(
        'resolve needs exactly one answer: --link REQUEST_ID (the request the service holds) or --send-new.',
      );
  }
  if (values['key-retention-hours'] !== undefined && command.data !== 'send' && command.data !== 'resolve')
    return refused('--key-retention-hours belongs to send and resolve only.');
  if (values['continue-batch'] === true && command.data !== 'send')
    return refused('--continue-batch belongs to send only.');
  if (command.data === 'send' && values['send-new'] === true) {
    if (values['continue-batch'] === true)
      return refused(
        'send takes --continue-batch or --send-new, not both: continue the batch, or send anew.',
      );
    if (values.confirm !== true)
      return refused(
        'send --send-new sends contracts this data folder already sent as new requests: their recipients get a second request. If that is what you want, add --confirm.',
      );
  }
  if (values['send-new'] === true && command.data !== 'send' && command.data !== 'resolve')
    return refused('--send-new belongs to send and resolve only.');
  if (
    values.confirm === true &&
    command.data !== 'resolve' &&
    !(command.data === 'send' && values['send-new'])
  )
    return refused(
      '--confirm belongs to resolve (--link … --confirm, --send-new --confirm) and to send --send-new.',
    );
  return ok({
    command: command.data,
    manifest: rest[0],
    baseUrl: values['base-url'],
    dataDir: values['data-dir'],
    concurrency: values.concurrency,
    json: values.json === true,
    profile: values.profile,
    reference: values.reference,
    link: values.link,
    sendNew: values['send-new'] === true,
    continueBatch: values['continue-batch'] === true,
    keyRetentionHours: values['key-retention-hours'],
    confirm: values.confirm === true,
  });
}
