import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConnection } from '../../../main/credentials/connection-test';
import {
  createKeytarCredentialStore,
  type CredentialStore,
} from '../../../main/credentials/credential-store';
import { createProfileStore } from '../../../main/credentials/profile-store';
import type { Connection } from '../../../main/credentials/connection';
import { Secret } from '../../../main/base/secret';
import { DEMO_CLIENT, startSimulator, type Simulator } from '../../../simulator/simulator';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';
import { keychainIdOf, savedSecretAccount } from '../../support/keychain-accounts';
import { KEYCHAIN_ID_FILE, ownerAccount } from '../../../main/credentials/folder-identity';
import { expectNoSecret, requireKeychain, testKeychainService } from './keychain-fixtures';

/** "Test connection" against the simulator over real loopback HTTP. */
let sim: Simulator;
let files: TempFolder;
let credentials: CredentialStore;

const NO_SCOPES = { clientId: 'no-scopes', clientSecret: 'no-scopes-secret-4711', scopes: [] };
const READ_ONLY = {
  clientId: 'read-only',
  clientSecret: 'read-only-secret-4711',
  scopes: ['signing.read' as const],
};
const ALL_SECRETS = [
  DEMO_CLIENT.clientSecret,
  NO_SCOPES.clientSecret,
  READ_ONLY.clientSecret,
  'wrong-secret-4711',
];

function connectionOf(client: { clientId: string; clientSecret: string }, baseUrl = sim.baseUrl): Connection {
  return { baseUrl, clientId: client.clientId, clientSecret: new Secret(client.clientSecret) };
}

beforeAll(async () => {
  sim = await startSimulator({ seed: 7, clients: [DEMO_CLIENT, NO_SCOPES, READ_ONLY] });
  files = makeTempFolder('desk-connection-test-');
  credentials = createKeytarCredentialStore(testKeychainService());
  await requireKeychain(credentials);
});

afterAll(async () => {
  const dataDir = files?.file('data');
  if (dataDir && existsSync(join(dataDir, KEYCHAIN_ID_FILE))) {
    await credentials?.deleteSecret(savedSecretAccount(dataDir, 'Demo'));
    await credentials?.deleteSecret(ownerAccount(keychainIdOf(dataDir)));
  }
  await sim?.close();
  files?.remove();
});

describe('testConnection', () => {
  it('obtains a token and reports its scopes and lifetime', async () => {
    const result = await testConnection(connectionOf(DEMO_CLIENT));
    expect(result).toEqual({
      ok: true,
      value: { scopes: DEMO_CLIENT.scopes, scopesReported: true, expiresInSeconds: 3600 },
    });
    expectNoSecret(result, ALL_SECRETS);
  });

  it('tests the connection of a profile saved with its secret in the keychain', async () => {
    const profiles = createProfileStore({ dataDir: files.file('data'), credentials });
    const saved = await profiles.save({
      name: 'Demo',
      baseUrl: `${sim.baseUrl}/`,
      clientId: DEMO_CLIENT.clientId,
      secret: DEMO_CLIENT.clientSecret,
    });
    expect(saved.ok).toBe(true);
    const connection = await profiles.connectionFor('Demo');
    if (!connection.ok) throw new Error(connection.error.message);
    expect((await testConnection(connection.value)).ok).toBe(true);
  });

  it('says the credentials were rejected when the secret is wrong, and never retries them', async () => {
    const tokenCallsBefore = sim.state.calls().filter((call) => call.operation === 'token').length;
    const result = await testConnection(
      connectionOf({ clientId: DEMO_CLIENT.clientId, clientSecret: 'wrong-secret-4711' }),
    );
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'credentials_rejected',
        message:
          'The service rejected the connection credentials. Check the client id and client secret of this connection, then test the connection again.',
      },
    });
    expectNoSecret(result, ALL_SECRETS);
    expect(sim.state.calls().filter((call) => call.operation === 'token').length).toBe(tokenCallsBefore + 1);
  });

  it('names every required scope a client without scopes lacks', async () => {
    const result = await testConnection(connectionOf(NO_SCOPES));
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'missing_scopes',
        message:
          'The credentials work, but this client lacks the scopes signing.create, signing.read, ceremony.create. The desk needs signing.create, signing.read, ceremony.create: ask your administrator to grant them, then test again.',
        missingScopes: ['signing.create', 'signing.read', 'ceremony.create'],
      },
    });
  });

  it('names only the scopes that are missing', async () => {
    const result = await testConnection(connectionOf(READ_ONLY));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.missingScopes).toEqual(['signing.create', 'ceremony.create']);
    expect(result.error.message).toContain('lacks the scopes signing.create, ceremony.create.');
  });

  it('retries a transient failure once, then succeeds', async () => {
    const tokenCalls = () => sim.state.calls().filter((call) => call.operation === 'token');
    const before = tokenCalls().length;
    sim.faults.enqueue({ kind: '503', pathPattern: '^/oauth/token$', retryAfterSeconds: 0 });
    const result = await testConnection(connectionOf(DEMO_CLIENT));
    expect(result.ok).toBe(true);
    expect(
      tokenCalls()
        .slice(before)
        .map((call) => call.status),
    ).toEqual([503, 200]);
  });

  it('says where it could not reach the service when nothing listens there', async () => {
    const unreachable = `http://127.0.0.1:${new URL(sim.baseUrl).port}`;
    await sim.goOffline();
    try {
      const result = await testConnection(connectionOf(DEMO_CLIENT, unreachable), {
        retry: { baseDelayMs: 10 },
      });
      expect(result).toEqual({
        ok: false,
        error: {
          code: 'network_unreachable',
          message: `The signing service cannot be reached at ${unreachable}. Check the base URL and the network or VPN, then test again.`,
          networkCode: 'ECONNREFUSED',
        },
      });
    } finally {
      await sim.goOnline();
    }
  });
});
