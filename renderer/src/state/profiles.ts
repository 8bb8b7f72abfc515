/** The `profiles.*` channels: the saved connections to the signing service, and the demo one. */
import { err, ok, type Result } from '../../../shared/base/result';
import type { ChannelResult, ProfileInput } from '../../../shared/ipc/contract';
import type { ProfileDependents } from '../../../shared/ipc/views';
import { desk, unwrap } from '../bridge';
import { formatDuration } from '../format';
import { attempt, failedWith, failureText, mainsWords } from './call-failures';
import type { StoreKit } from './store-shape';
import { withNotice, withProfiles } from './transitions';

/** How main answered a save of a connection: a failure comes back for the form to show. */
export type ProfileSaveAnswer = Result<void, string>;

/**
 * How main answered the deletion of a connection: a refusal comes back with its words for the
 * dialog, and `inUse` when more depends on it now than the person was shown (look again).
 */
export type ProfileDeleteAnswer = Result<void, { readonly message: string; readonly inUse: boolean }>;

/** What a connection's test found, in words for its row. */
export interface ProfileTestAnswer {
  readonly ok: boolean;
  readonly message: string;
}

export interface ProfilesActions {
  list(): Promise<void>;
  /** Saves a connection; a refusal comes back with main's words, for the form the user is in. */
  save(input: ProfileInput): Promise<ProfileSaveAnswer>;
  /** What stops if the connection is deleted; a failure comes back in words for the dialog. */
  dependents(name: string): Promise<Result<ProfileDependents, string>>;
  /**
   * Deletes a connection; `dependents` is how many open requests and unfinished documents the
   * person was shown depend on it (main refuses when there are more now).
   */
  delete(name: string, dependents: number): Promise<ProfileDeleteAnswer>;
  activate(name: string): Promise<void>;
  test(name: string): Promise<ProfileTestAnswer>;
  /** Sets up the built-in service simulator as a connection ("Use the demo connection"). */
  useDemo(): Promise<void>;
}

export function profilesActions(kit: StoreKit): ProfilesActions {
  const { set, get, t } = kit;
  return {
    async list() {
      const profiles = await attempt(kit, () => unwrap(desk().profiles.list()));
      if (profiles) set((state) => withProfiles(state, profiles));
    },
    async save(input) {
      let answer: ProfileSaveAnswer;
      try {
        const saved = await unwrap(desk().profiles.save(input));
        set((state) => withNotice(state, 'success', t('connections.saved', { name: saved.name })));
        answer = ok();
      } catch (error) {
        answer = err(mainsWords(error, kit));
      }
      await get().actions.profiles.list();
      return answer;
    },
    async dependents(name) {
      try {
        return ok(await unwrap(desk().profiles.dependents(name)));
      } catch (error) {
        return err(failureText(error, get().translator));
      }
    },
    async delete(name, dependents) {
      let answer: ProfileDeleteAnswer;
      try {
        await unwrap(desk().profiles.delete(name, { dependents }));
        set((state) => withNotice(state, 'success', t('connections.deleted', { name })));
        answer = ok();
      } catch (error) {
        answer = err({
          message: failureText(error, get().translator),
          inUse: failedWith(error, 'connection_in_use'),
        });
      }
      await get().actions.profiles.list();
      return answer;
    },
    async activate(name) {
      await attempt(kit, () => unwrap(desk().profiles.activate(name)));
      await get().actions.profiles.list();
    },
    async test(name) {
      let result: ChannelResult<'profiles.test'>;
      try {
        result = await unwrap(desk().profiles.test(name));
      } catch (error) {
        // Said in the connection's row, where the person asked.
        return { ok: false, message: t('connections.testNotRun', { message: mainsWords(error, kit) }) };
      }
      if (!result.ok) return { ok: false, message: t('connections.testFailed', { message: result.message }) };
      const scopes = result.scopes.join(', ') || t('connections.scopesNotStated');
      return {
        ok: true,
        message: result.expiresInSeconds
          ? t('connections.testOkFor', {
              validity: formatDuration(result.expiresInSeconds, get().translator.locale),
              scopes,
            })
          : t('connections.testOk', { scopes }),
      };
    },
    async useDemo() {
      const profile = await attempt(kit, () => unwrap(desk().profiles.useDemo()));
      if (profile) set((state) => withNotice(state, 'success', t('connections.demoReady')));
      await get().actions.profiles.list();
    },
  };
}
