/**
 * Whether the keychain keeps the app waiting. A desktop keychain may show its own unlock prompt
 * (a normal first use on Linux) and answer only once a person typed a password: until then a
 * save, a test or a send waits in silence. This store wraps another and says, truthfully, when
 * one of its calls has been waiting longer than a moment and when none waits any more, so the
 * desk can tell the person where to look.
 */
import type { CredentialStore } from './credential-store';
import { systemClock, type Clock } from '../time/clock';

/** Long enough that a keychain answering normally never shows; short enough to be seen within a second. */
export const KEYCHAIN_WAIT_NOTICE_MS = 300;

export interface KeychainWaits {
  /** True while a keychain call has been outstanding for longer than the notice delay. */
  waiting(): boolean;
  /** Told `true` when a call starts to wait, `false` once no call is outstanding; returns the unsubscribe. */
  subscribe(listener: (waiting: boolean) => void): () => void;
}

/** `store`, whose outstanding calls are watched. */
export function watchKeychain(
  store: CredentialStore,
  options: { readonly noticeAfterMs?: number; readonly clock?: Clock } = {},
): { readonly credentials: CredentialStore; readonly waits: KeychainWaits } {
  const noticeAfterMs = options.noticeAfterMs ?? KEYCHAIN_WAIT_NOTICE_MS;
  const clock = options.clock ?? systemClock;
  const listeners = new Set<(waiting: boolean) => void>();
  let outstanding = 0;
  let waiting = false;
  const tell = (now: boolean) => {
    if (waiting === now) return;
    waiting = now;
    for (const listener of listeners) listener(now);
  };

  function watched<A extends unknown[], R>(call: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args) => {
      outstanding += 1;
      const cancel = clock.timer(noticeAfterMs, () => tell(true), true);
      // A keychain call is real work (a D-Bus round trip on one of libuv's threads, invisible
      // to a virtual clock): marked, so a test's clock does not jump to the notice over it.
      const done = clock.busy();
      try {
        return await call(...args);
      } finally {
        done();
        cancel();
        outstanding -= 1;
        // Waiting ends when the keychain has answered every call, not just the first.
        if (outstanding === 0) tell(false);
      }
    };
  }

  return {
    credentials: {
      probe: watched(() => store.probe()),
      saveSecret: watched((name: string, secret: Parameters<CredentialStore['saveSecret']>[1]) =>
        store.saveSecret(name, secret),
      ),
      readSecret: watched((name: string) => store.readSecret(name)),
      deleteSecret: watched((name: string) => store.deleteSecret(name)),
      hasSecret: watched((name: string) => store.hasSecret(name)),
    },
    waits: {
      waiting: () => waiting,
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
}
