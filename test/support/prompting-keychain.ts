import { createMemoryCredentialStore, type CredentialStore } from '../../main/credentials/credential-store';

/** A keychain that, while locked, answers only once its own unlock prompt was answered. */
export function promptingKeychain(): { credentials: CredentialStore; lock: () => void; answer: () => void } {
  const memory = createMemoryCredentialStore();
  let gate: Promise<void> | undefined;
  let release: (() => void) | undefined;
  const prompt = async () => {
    if (gate) await gate;
  };
  return {
    credentials: {
      ...memory,
      saveSecret: async (name, secret) => {
        await prompt();
        return memory.saveSecret(name, secret);
      },
      readSecret: async (name) => {
        await prompt();
        return memory.readSecret(name);
      },
    },
    lock: () => {
      gate = new Promise<void>((resolve) => (release = resolve));
    },
    answer: () => {
      gate = undefined;
      release?.();
    },
  };
}
