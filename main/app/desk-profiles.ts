import type { ProfileView } from '../../shared/ipc/views';
import type { Connection } from '../credentials/connection';
import type { ProfileRecord } from '../credentials/profile-store';
import { Secret } from '../base/secret';
import type { ProfileRegistry } from './ports';

/**
 * The demo's name among the profiles: a fixed key, never shown as is (the page and the review
 * say it in the person's language: shared/i18n/connection-label.ts).
 */
export const DEMO_PROFILE_NAME = 'Demo (built-in simulator)';

/** The demo's address and public demo credentials. */
interface DemoConnection {
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/**
 * The profiles the desk offers (the `profiles.*` channels; "Connections" on screen): the saved
 * ones (settings and the keychain, through the registry) and the demo. The demo is a local
 * simulator started for this run, with public demo credentials: it lives in memory only (never
 * in profiles.json or the keychain), so it works without a keychain. Which one is active decides
 * only where new batches go.
 */
export class DeskProfiles {
  readonly #registry: ProfileRegistry;
  #demo: DemoConnection | undefined;
  #demoActive = false;

  constructor(registry: ProfileRegistry) {
    this.#registry = registry;
  }

  get registry(): ProfileRegistry {
    return this.#registry;
  }

  /** True when `name` is the demo's and the demo runs. */
  isDemo(name: string): boolean {
    return name === DEMO_PROFILE_NAME && this.#demo !== undefined;
  }

  /** Starts using the demo (its simulator just started, maybe at a new address); makes it active unless told not to. */
  useDemo(demo: DemoConnection, { active = true } = {}): void {
    this.#demo = demo;
    this.#demoActive = active;
  }

  forgetDemo(): void {
    this.#demo = undefined;
    this.#demoActive = false;
  }

  /** Makes `name` the active connection. */
  async activate(name: string): Promise<void> {
    if (this.isDemo(name)) {
      this.#demoActive = true;
      return;
    }
    await this.#registry.setActive(name);
    this.#demoActive = false;
  }

  async activeName(): Promise<string | undefined> {
    if (this.#demoActive) return DEMO_PROFILE_NAME;
    return this.#registry.activeName();
  }

  /** Every profile as the Connections screen shows it (`profiles.list`). */
  async list(): Promise<ProfileView[]> {
    const active = await this.activeName();
    const views: ProfileView[] = (await this.#stored()).map((profile) => ({
      ...profile,
      active: profile.name === active,
      demo: false,
    }));
    if (this.#demo) {
      views.push({
        name: DEMO_PROFILE_NAME,
        baseUrl: this.#demo.baseUrl,
        clientId: this.#demo.clientId,
        hasSecret: true,
        active: this.#demoActive,
        demo: true,
      });
    }
    return views;
  }

  /** A connection with its secret: the demo's from memory, any other's from the keychain. */
  async connectionOf(name: string): Promise<Connection> {
    if (this.isDemo(name) && this.#demo) {
      const demo = this.#demo;
      return { baseUrl: demo.baseUrl, clientId: demo.clientId, clientSecret: new Secret(demo.clientSecret) };
    }
    return this.#registry.connectionFor(name);
  }

  /** The saved profiles; while the demo runs, a keychain problem must not hide it. */
  async #stored(): Promise<ProfileRecord[]> {
    try {
      return await this.#registry.list();
    } catch (error) {
      if (this.#demo) return [];
      throw error;
    }
  }
}
