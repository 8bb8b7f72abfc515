import type { DeskHandlers } from '../../../shared/ipc/contract';
import type { ProfileView } from '../../../shared/ipc/views';
import { dependentCount, dependentsOf } from '../connection-dependents';
import type { DeskContext } from '../desk-context';
import { DeskError } from '../desk-error';
import { DEMO_PROFILE_NAME } from '../desk-profiles';

export function profilesHandlers(
  ctx: DeskContext,
): Pick<
  DeskHandlers,
  | 'profiles.list'
  | 'profiles.save'
  | 'profiles.dependents'
  | 'profiles.delete'
  | 'profiles.activate'
  | 'profiles.test'
  | 'profiles.useDemo'
> {
  return {
    'profiles.list': () => ctx.profiles.list(),
    'profiles.save': async (input) => {
      if (input.name.toLowerCase() === DEMO_PROFILE_NAME.toLowerCase()) {
        throw new DeskError('reserved_name', ctx.translator().t('errors.reservedName'));
      }
      const saved = await ctx.deps.profiles.save(input);
      // Its address, client id or secret may have changed: its connections open afresh.
      const interrupted = await ctx.sessions.forget(saved.name, saved);
      if (!(await ctx.profiles.activeName())) await ctx.deps.profiles.setActive(saved.name);
      await ctx.connectionsChanged(interrupted);
      await ctx.announceProfiles();
      return (await ctx.profiles.list()).find((profile) => profile.name === saved.name) as ProfileView;
    },
    'profiles.dependents': async (name) => dependentsOf(name, await ctx.profiles.list(), ctx.store.loaded()),
    'profiles.delete': async (name, confirmed) => {
      // Requests that would stop being read are never dropped unseen: the person confirms what
      // they were shown, and a count that grew since (a batch sent meanwhile) is shown again.
      const count = dependentCount(dependentsOf(name, await ctx.profiles.list(), ctx.store.loaded()));
      if (count > (confirmed?.dependents ?? 0))
        throw new DeskError(
          'connection_in_use',
          ctx.translator().t('connections.deleteInUseNow', { name, count }),
        );
      const interrupted = await ctx.sessions.forget(name);
      if (ctx.profiles.isDemo(name)) ctx.profiles.forgetDemo();
      else await ctx.deps.profiles.delete(name);
      await ctx.connectionsChanged(interrupted);
      await ctx.announceProfiles();
      return null;
    },
    'profiles.activate': async (name) => {
      await ctx.profiles.activate(name);
      // A batch of an earlier version may be waiting for its connection to become active.
      await ctx.connectionsChanged([]);
      await ctx.announceProfiles();
      return (await ctx.profiles.list()).find((profile) => profile.name === name) as ProfileView;
    },
    'profiles.test': async (name) => {
      const profile = (await ctx.profiles.list()).find((candidate) => candidate.name === name);
      if (!profile)
        throw new DeskError('profile_not_found', ctx.translator().t('errors.profileNotFound', { name }));
      return ctx.deps.testConnection(profile, await ctx.profiles.connectionOf(name));
    },
    'profiles.useDemo': async () => {
      if (!ctx.deps.demo) {
        throw new DeskError('demo_unavailable', ctx.translator().t('errors.demoUnavailable'));
      }
      ctx.profiles.useDemo(await ctx.deps.demo.start());
      // The demo simulator may have moved (a new run): its connection opens afresh.
      await ctx.connectionsChanged(await ctx.sessions.forget(DEMO_PROFILE_NAME));
      await ctx.announceProfiles();
      return (await ctx.profiles.list()).find((profile) => profile.name === DEMO_PROFILE_NAME) as ProfileView;
    },
  };
}
