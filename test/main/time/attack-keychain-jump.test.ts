/**
 * Attack on the virtual clock: a real keychain call is real work (a D-Bus round trip done on one
 * of libuv's threads), but nothing marks it busy and libuv lists no request for it. A desk on a
 * virtual clock then jumps over it, and the keychain notice ("the keychain is waiting for you")
 * fires for a keychain that answered in a few milliseconds: what no person would ever see.
 */
import { afterAll, expect, it } from 'vitest';
import { createKeytarCredentialStore } from '../../../main/credentials/credential-store';
import { watchKeychain } from '../../../main/credentials/keychain-watch';
import { Secret } from '../../../main/base/secret';
import { VirtualClock } from '../../../main/time/virtual-clock';
import { requireKeychain, testKeychainService } from '../credentials/keychain-fixtures';

const keychain = createKeytarCredentialStore(testKeychainService());

afterAll(async () => {
  await keychain.deleteSecret('attack');
});

it('a real keychain that answers at once: no keychain notice, even on a virtual clock', async () => {
  await requireKeychain(keychain);
  const clock = new VirtualClock({ startAt: Date.now() });
  const watched = watchKeychain(keychain, { clock });
  const told: boolean[] = [];
  watched.waits.subscribe((waiting) => told.push(waiting));

  const saved = await clock.complete(watched.credentials.saveSecret('attack', new Secret('s3cret-attack')));
  expect(saved.ok).toBe(true);
  const read = await clock.complete(watched.credentials.readSecret('attack'));
  expect(read.ok && read.value?.reveal()).toBe('s3cret-attack');

  // The real keychain answered each call within milliseconds of real time: nothing to tell.
  expect(told).toEqual([]);
});
