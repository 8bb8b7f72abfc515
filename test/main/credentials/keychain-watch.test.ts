/**
 * The keychain notice tells the truth about time: it shows once a call has waited its moment
 * (300 ms, exactly, on a virtual clock) and leaves only when the keychain has answered every
 * call, not the first one.
 */
import { describe, expect, it } from 'vitest';
import type { CredentialResult, CredentialStore } from '../../../main/credentials/credential-store';
import { KEYCHAIN_WAIT_NOTICE_MS, watchKeychain } from '../../../main/credentials/keychain-watch';
import { VirtualClock } from '../../../main/time/virtual-clock';

/** A keychain whose calls wait until the test answers them, one by one, in order. */
function promptingKeychain() {
  const answers: (() => void)[] = [];
  const held = <T>(value: T) =>
    new Promise<CredentialResult<T>>((resolve) => answers.push(() => resolve({ ok: true, value })));
  const store: CredentialStore = {
    probe: () => held(undefined),
    saveSecret: () => held(undefined),
    readSecret: () => held(undefined),
    deleteSecret: () => held(false),
    hasSecret: () => held(false),
  };
  return { store, answerNext: () => answers.shift()?.() };
}

describe('the keychain notice', () => {
  it('shows after exactly its moment, and stays until the keychain has answered every call', async () => {
    const clock = new VirtualClock();
    const keychain = promptingKeychain();
    const watched = watchKeychain(keychain.store, { clock });
    const told: boolean[] = [];
    watched.waits.subscribe((waiting) => told.push(waiting));

    const first = watched.credentials.hasSecret('Office');
    const second = watched.credentials.readSecret('Office');
    // The keychain waits for a person: time passes over the calls on purpose.
    await clock.advanceWhileCallsHang(KEYCHAIN_WAIT_NOTICE_MS - 1);
    expect(told).toEqual([]);
    await clock.advanceWhileCallsHang(1);
    expect(told).toEqual([true]);
    expect(watched.waits.waiting()).toBe(true);

    keychain.answerNext();
    await first;
    // One call is still waiting for the person: the notice stays.
    expect(told).toEqual([true]);
    expect(watched.waits.waiting()).toBe(true);

    keychain.answerNext();
    await second;
    expect(told).toEqual([true, false]);
    expect(watched.waits.waiting()).toBe(false);
  });
});
