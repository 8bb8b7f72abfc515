import { resolveLanguage } from '../../../shared/i18n/languages';
import type { DeskHandlers } from '../../../shared/ipc/contract';
import type { AppInfo } from '../../../shared/ipc/views';
import type { DeskContext } from '../desk-context';

export function appHandlers(ctx: DeskContext): Pick<DeskHandlers, 'app.info' | 'app.setLanguage'> {
  const info = (): AppInfo => {
    const { language, locale, t } = ctx.translator();
    return {
      host: ctx.deps.host,
      version: ctx.deps.version,
      dataDir: ctx.deps.dataDir.path,
      trackingPaused: ctx.trackingPaused(),
      language,
      locale,
      languageSetting: ctx.settings.get().language,
      systemLanguage: resolveLanguage('system', ctx.deps.systemLocales?.() ?? []).language,
      // The problem itself is the store's technical wording, kept as it is for support.
      damagedBatches: ctx.store.loadReport.damaged.map(({ batchId, damage }) => ({
        batchId,
        problem: damage.line
          ? t('common.damagedProblemAtLine', {
              problem: damage.problem,
              file: damage.file,
              line: damage.line,
            })
          : t('common.damagedProblem', { problem: damage.problem, file: damage.file }),
      })),
    };
  };
  return {
    'app.info': async () => info(),
    'app.setLanguage': async (setting) => {
      await ctx.settings.update({ language: setting });
      return info();
    },
  };
}
