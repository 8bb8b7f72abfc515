/** Where the command line gets its connection and how it logs: shared by every command that calls the service. */
import { err, ok, type Result } from '../../shared/base/result';
import { checkBaseUrl } from '../client/base-url';
import { createKeytarCredentialStore } from '../credentials/credential-store';
import { createProfileStore } from '../credentials/profile-store';
import { sameConnection, type ConnectionAddress } from '../domain/batch-connection';
import type { Connection } from '../credentials/connection';
import type { ConnectionTuning } from '../app/desk-core';
import { createJsonLogger, type Logger } from '../base/log';
import { Secret } from '../base/secret';
import type { CliArgs } from './cli-args';

/** What a test may change in a command: the clock (a virtual one makes backoffs, holds and reads take no real time). */
export type CommandTuning = Pick<ConnectionTuning, 'clock'>;

/** A connection to use, or why there is none, in a sentence. */
export type ChosenConnection = Result<Connection, string>;

/**
 * The environment's credentials for `baseUrl`, which is checked here again (the address rule,
 * base-url.ts): whoever calls, the environment's secret goes only to an address that passes it.
 */
function connectionFromEnvironment(baseUrl: string): ChosenConnection {
  const address = checkBaseUrl(baseUrl);
  if (!address.ok) return err(`--base-url: ${address.error}`);
  const clientId = process.env.SIGNING_CLIENT_ID?.trim();
  const clientSecret = process.env.SIGNING_CLIENT_SECRET;
  if (!clientId || !clientSecret) {
    return err(
      'Set SIGNING_CLIENT_ID and SIGNING_CLIENT_SECRET in the environment (the secret is never accepted on the command line).',
    );
  }
  return ok({ baseUrl: address.value, clientId, clientSecret: new Secret(clientSecret) });
}

/**
 * Why the data folder's record of where a batch was sent names an address the address rule
 * refuses (base-url.ts), or undefined when it passes. The app and the command line only ever
 * record addresses that pass: another program, or someone who could write the data folder,
 * wrote this one, and nothing is sent to it, not even to look.
 */
export function recordedAddressProblem(address: ConnectionAddress): string | undefined {
  const checked = checkBaseUrl(address.baseUrl);
  return checked.ok
    ? undefined
    : `the data folder records that it was sent to a service address that is refused. ${checked.error} Nothing is sent there: the data folder was changed outside the app and the command line; restore it from a backup.`;
}

/** A saved profile of the data folder, with its secret from the OS keychain. */
async function connectionFromProfile(name: string, dataDir: string): Promise<ChosenConnection> {
  const profiles = createProfileStore({ dataDir, credentials: createKeytarCredentialStore() });
  const connection = await profiles.connectionFor(name);
  return connection.ok ? connection : err(connection.error.message);
}

/** `--profile NAME` (settings in the data folder, secret in the keychain), else the environment; a message when neither works. */
export async function chooseConnection(
  args: CliArgs,
  dataDir: string,
  baseUrl: string,
): Promise<ChosenConnection> {
  const chosen = !args.profile
    ? connectionFromEnvironment(baseUrl)
    : args.baseUrl
      ? err('Use either --profile or --base-url, not both: the profile names its base URL.')
      : await connectionFromProfile(args.profile, dataDir);
  // What the service's operator states wins over the profile's setting and the default.
  if (!chosen.ok || args.keyRetentionHours === undefined) return chosen;
  return ok({ ...chosen.value, keyRetentionHours: args.keyRetentionHours });
}

/**
 * The credentials for a connection a batch is bound to (`watch` tracks each batch at its own
 * service): the saved profile of the data folder with that address and client id (secret from
 * the keychain), else the environment's when `SIGNING_CLIENT_ID` is that client and `--base-url`
 * names that address (never an address read from the data folder alone). A message when neither has it.
 */
export async function connectionForAddress(
  address: ConnectionAddress,
  dataDir: string,
  args: Pick<CliArgs, 'baseUrl'>,
): Promise<ChosenConnection> {
  const refused = recordedAddressProblem(address);
  if (refused) return err(refused);
  // A saved profile names its address: it is the surest match.
  const profiles = createProfileStore({ dataDir, credentials: createKeytarCredentialStore() });
  const listed = await profiles.list();
  const saved = listed.ok ? listed.value.filter((candidate) => sameConnection(candidate, address)) : [];
  const profile = saved.find((candidate) => candidate.hasSecret);
  if (profile) return connectionFromProfile(profile.name, dataDir);
  // A profile for this address whose secret is not usable (none, or saved for another address).
  const unusable = saved[0] ? await profiles.connectionFor(saved[0].name) : undefined;
  const profileProblem = unusable && !unusable.ok ? ` ${unusable.error.message}` : '';
  // The environment names no address, and the data folder's may have been changed by anyone who
  // can write it: the environment's secret goes only where --base-url, typed by the user, says.
  const envClient = process.env.SIGNING_CLIENT_ID?.trim();
  const addressAllowed =
    args.baseUrl !== undefined &&
    sameConnection({ baseUrl: args.baseUrl, clientId: address.clientId }, address);
  // The address as the user typed it (checked), never the data folder's spelling of it.
  if (envClient === address.clientId && process.env.SIGNING_CLIENT_SECRET && addressAllowed)
    return connectionFromEnvironment(args.baseUrl);
  return err(
    `no credentials for client ${address.clientId}: set SIGNING_CLIENT_ID and SIGNING_CLIENT_SECRET to that client's and pass --base-url ${address.baseUrl} (the environment's secret goes only where --base-url says), or save a profile for ${address.baseUrl} in the app.${profileProblem}`,
  );
}

/** Warnings for people who debug (DESK_LOG=json); secrets cannot reach it (they are `Secret` values). */
export function stderrLogger(): Logger {
  return process.env.DESK_LOG === 'json'
    ? createJsonLogger((line) => process.stderr.write(line))
    : { log() {} };
}
