import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeskError } from '../../../main/app/desk-error';
import { createMemoryCredentialStore } from '../../../main/credentials/credential-store';
import { createProfileStore } from '../../../main/credentials/profile-store';
import { profileRegistryOver } from '../../../main/app/profile-registry';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

let folder: TempFolder;

beforeEach(() => {
  folder = makeTempFolder('desk-profiles-');
});
afterEach(() => folder.remove());

const registry = (unavailable = false) =>
  profileRegistryOver(
    createProfileStore({ dataDir: folder.path, credentials: createMemoryCredentialStore({ unavailable }) }),
  );

describe('the profile registry of the Electron app', () => {
  it('saves, lists, activates and connects through the profile store', async () => {
    const profiles = registry();
    const saved = await profiles.save({
      name: 'Sandbox',
      baseUrl: 'https://sign.example.com/',
      clientId: 'client-1',
      secret: 's3cret',
    });
    expect(saved).toEqual({
      name: 'Sandbox',
      baseUrl: 'https://sign.example.com',
      clientId: 'client-1',
      hasSecret: true,
    });
    expect(await profiles.list()).toEqual([saved]);
    await profiles.setActive('sandbox');
    expect(await profiles.activeName()).toBe('Sandbox');
    const connection = await profiles.connectionFor('Sandbox');
    expect(connection.clientSecret.reveal()).toBe('s3cret');
    expect(JSON.stringify(connection)).not.toContain('s3cret');
    await profiles.delete('Sandbox');
    expect(await profiles.list()).toEqual([]);
  });

  it('turns store failures into DeskErrors with the store’s code and message', async () => {
    const profiles = registry();
    await expect(profiles.connectionFor('Nope')).rejects.toBeInstanceOf(DeskError);
    await expect(profiles.connectionFor('Nope')).rejects.toMatchObject({ code: 'profile_not_found' });
    await expect(
      profiles.save({ name: 'Bad', baseUrl: 'http://sign.example.com', clientId: 'c', secret: 's' }),
    ).rejects.toMatchObject({ code: 'invalid_profile' });
  });

  it('refuses to keep a secret when no keychain answers', async () => {
    const failure = registry(true).save({
      name: 'Sandbox',
      baseUrl: 'https://sign.example.com',
      clientId: 'c',
      secret: 'never-in-a-message',
    });
    await expect(failure).rejects.toMatchObject({ code: 'keychain_unavailable' });
    await expect(failure).rejects.toSatisfy((error: Error) => !error.message.includes('never-in-a-message'));
  });
});
