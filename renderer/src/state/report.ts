/** The `report.*` channel the page calls: saves a batch's report where the person chooses. */
import { desk, unwrap } from '../bridge';
import { attempt } from './call-failures';
import type { StoreKit } from './store-shape';
import { withNotice } from './transitions';

export interface ReportActions {
  /** Main asks where to save (the page never chooses a path to write); said once saved. */
  export(batchId: string): Promise<void>;
}

export function reportActions(kit: StoreKit): ReportActions {
  return {
    async export(batchId) {
      const path = await attempt(kit, () => unwrap(desk().report.export(batchId)));
      if (path) kit.set((state) => withNotice(state, 'success', kit.t('common.reportSaved', { path })));
    },
  };
}
