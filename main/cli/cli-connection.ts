/** Where the command line gets its connection and how it logs: shared by every command that calls the service. */
import { createKeytarCredentialStore } from '../credentials/credential-store';
import { createProfileStore } from '../credentials/profile-store';
import type { Connection } from '../desk-core';
import { createJsonLogger, type Logger } from '../log';
import { Secret } from '../secret';
import type { CliArgs } from './cli-args';

function connectionFromEnvironment(baseUrl: string): Connection | string {
  const clientId = process.env.SIGNING_CLIENT_ID?.trim();
  const clientSecret = process.env.SIGNING_CLIENT_SECRET;
  if (!clientId || !clientSecret) {
    return 'Set SIGNING_CLIENT_ID and SIGNING_CLIENT_SECRET in the environment (the secret is never accepted on the command line).';
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ''), clientId, clientSecret: new Secret(clientSecret) };
}

/** A saved profile of the data folder, with its secret from the OS keychain. */
async function connectionFromProfile(name: string, dataDir: string): Promise<Connection | string> {
  const profiles = createProfileStore({ dataDir, credentials: createKeytarCredentialStore() });
  const connection = await profiles.connectionFor(name);
  return connection.ok ? connection.value : connection.message;
}

/** `--profile NAME` (settings in the data folder, secret in the keychain), else the environment; a message when neither works. */
export async function chooseConnection(
  args: CliArgs,
  dataDir: string,
  baseUrl: string,
): Promise<Connection | string> {
  if (!args.profile) return connectionFromEnvironment(baseUrl);
  if (args.baseUrl) return 'Use either --profile or --base-url, not both: the profile names its base URL.';
  return connectionFromProfile(args.profile, dataDir);
}

/** Warnings for people who debug (DESK_LOG=json); secrets cannot reach it (they are `Secret` values). */
export function stderrLogger(): Logger {
  return process.env.DESK_LOG === 'json'
    ? createJsonLogger((line) => process.stderr.write(line))
    : { log() {} };
}
