/**
 * `npm run simulator`: runs the signing service simulator in the foreground for local
 * development, scripts and browser journeys.
 *
 *   --port N          port on 127.0.0.1 (default 4010; 0 picks a free one)
 *   --latency-ms N    latency added to every API answer
 *   --fail-rate F     probability of 503 upstream_unavailable per API call
 *   --token-refusal-rate F
 *                     probability that a token request is refused (400 invalid_grant), as a
 *                     service does for a moment during a key rotation
 *   --upload-mbit N   the client's uplink in Mbit/s: every upload body, all connections
 *                     together, is read at most this fast (default: unlimited)
 *   --upload-mbit-per-connection N
 *                     each connection's own line in Mbit/s (a per-flow shaper): an upload body
 *                     crosses it and the shared line, at the pace of the slower (default: unlimited)
 *   --silent-rate F   probability that an API call goes silent: never read further, never
 *                     answered, its connection left open until the client closes it
 *   --seed N          seed of the random faults
 *   --variant NAME    the service variant to play (variants.ts; default reference); an unknown
 *                     name exits 2 listing the names
 *   --json            print one JSON line {"baseUrl","clientId","clientSecret"} instead of the banner
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { DEMO_CLIENT, startSimulator } from './simulator';
import { MIN_UPLINK_MBIT } from './line';
import { REFERENCE_VARIANT, describeVariant, variantNamed, type ServiceVariant } from './variants';

const flagsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(4010),
  latencyMs: z.coerce.number().min(0).default(0),
  failRate: z.coerce.number().min(0).max(1).default(0),
  tokenRefusalRate: z.coerce.number().min(0).max(1).default(0),
  uploadMbit: z.coerce.number().min(MIN_UPLINK_MBIT).optional(),
  uploadMbitPerConnection: z.coerce.number().min(MIN_UPLINK_MBIT).optional(),
  silentRate: z.coerce.number().min(0).max(1).default(0),
  seed: z.coerce.number().int().optional(),
  variant: z.string().optional(),
  json: z.boolean().default(false),
});

function readFlags(): z.infer<typeof flagsSchema> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'latency-ms': { type: 'string' },
      'fail-rate': { type: 'string' },
      'token-refusal-rate': { type: 'string' },
      'upload-mbit': { type: 'string' },
      'upload-mbit-per-connection': { type: 'string' },
      'silent-rate': { type: 'string' },
      seed: { type: 'string' },
      variant: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const parsed = flagsSchema.safeParse({
    port: values.port,
    latencyMs: values['latency-ms'],
    failRate: values['fail-rate'],
    tokenRefusalRate: values['token-refusal-rate'],
    uploadMbit: values['upload-mbit'],
    uploadMbitPerConnection: values['upload-mbit-per-connection'],
    silentRate: values['silent-rate'],
    seed: values.seed,
    variant: values.variant,
    json: values.json,
  });
  if (!parsed.success) {
    // Named as typed: --upload-mbit, not the schema's uploadMbit.
    const flagName = (key: string) => key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
    const problems = parsed.error.issues.map(
      (issue) => `--${flagName(issue.path.join('.'))}: ${issue.message}`,
    );
    throw new Error(`invalid options: ${problems.join('; ')}`);
  }
  return parsed.data;
}

function banner(
  baseUrl: string,
  variant: ServiceVariant,
  uplink: { shared: number | undefined; perConnection: number | undefined },
): string {
  return [
    '',
    `Signing service simulator listening on ${baseUrl}`,
    '',
    `  Base URL        ${baseUrl}`,
    `  Client id       ${DEMO_CLIENT.clientId}`,
    `  Client secret   ${DEMO_CLIENT.clientSecret}   (a demo credential of this local simulator)`,
    `  Control API     ${baseUrl}/__simulator/state  (see simulator/README.md)`,
    `  Variant         ${describeVariant(variant)}`,
    ...(uplink.shared === undefined
      ? []
      : [`  Uplink          ${uplink.shared} Mbit/s for uploads, all connections together`]),
    ...(uplink.perConnection === undefined
      ? []
      : [`  Per connection  ${uplink.perConnection} Mbit/s for uploads, each connection its own line`]),
    '',
    'Press Ctrl+C to stop.',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const flags = readFlags();
  const variant = flags.variant === undefined ? REFERENCE_VARIANT : variantNamed(flags.variant);
  const simulator = await startSimulator({
    port: flags.port,
    variant,
    ...(flags.uploadMbit === undefined ? {} : { uploadMbit: flags.uploadMbit }),
    ...(flags.uploadMbitPerConnection === undefined
      ? {}
      : { uploadMbitPerConnection: flags.uploadMbitPerConnection }),
    ...(flags.seed === undefined ? {} : { seed: flags.seed }),
  });
  simulator.faults.set({
    latencyMs: flags.latencyMs,
    rate503: flags.failRate,
    tokenRefusalRate: flags.tokenRefusalRate,
    silentRate: flags.silentRate,
  });
  if (flags.json) {
    console.log(
      JSON.stringify({
        baseUrl: simulator.baseUrl,
        clientId: DEMO_CLIENT.clientId,
        clientSecret: DEMO_CLIENT.clientSecret,
      }),
    );
  } else {
    console.log(
      banner(simulator.baseUrl, simulator.variant, {
        shared: flags.uploadMbit,
        perConnection: flags.uploadMbitPerConnection,
      }),
    );
  }

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    if (!flags.json) console.log(`\n${signal} received, stopping the simulator.`);
    simulator.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('simulator: error while stopping', error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** What went wrong at start, in words a person running the command can act on. */
function startFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const port = (error as { port?: unknown } | undefined)?.port;
  if (code === 'EADDRINUSE')
    return (
      `simulator: port ${String(port ?? '')} on 127.0.0.1 is already in use (another simulator, or another ` +
      'program). Choose another with --port N, or --port 0 for a free one (the address is printed).'
    );
  if (code === 'EACCES')
    return `simulator: port ${String(port ?? '')} may not be used by this user; choose one above 1023 with --port N.`;
  return error instanceof Error ? error.message : String(error);
}

main().catch((error: unknown) => {
  console.error(startFailure(error));
  process.exit(2);
});
