/** The `ceremony.*` channel: opens a document's signing ceremony in its own window. */
import type { ChannelResult } from '../../../shared/ipc/contract';
import { desk, unwrap } from '../bridge';
import { formatDuration } from '../format';
import { mainsWords } from './call-failures';
import type { StoreKit } from './store-shape';
import { referenceOf, withNotice } from './transitions';

export interface CeremonyActions {
  /** Opens it; while it opens, and when it cannot, `ceremonyAttempt` says so (with the reason). */
  open(batchId: string, documentId: string): Promise<void>;
  /** Forgets a ceremony that could not open. */
  dismissProblem(): void;
}

export function ceremonyActions(kit: StoreKit): CeremonyActions {
  const { set, setWaits, get, t } = kit;
  return {
    async open(batchId, documentId) {
      const reference = referenceOf(get(), batchId, documentId) ?? documentId;
      setWaits({ ceremonyAttempt: { batchId, documentId, reference, state: 'opening' } });
      let opened: ChannelResult<'ceremony.open'>;
      try {
        opened = await unwrap(desk().ceremony.open(batchId, documentId));
      } catch (error) {
        const message = mainsWords(error, kit);
        setWaits({ ceremonyAttempt: { batchId, documentId, reference, state: 'failed', message } });
        return;
      }
      setWaits({ ceremonyAttempt: undefined });
      if (opened.alreadyOpen) {
        set((state) => withNotice(state, 'info', t('common.ceremonyAlreadyOpen')));
      } else {
        // The link's real validity, to the second (a 30 s link is not "1 min").
        const validity = formatDuration(opened.expiresInSeconds, get().translator.locale);
        set((state) => withNotice(state, 'info', t('common.ceremonyOpened', { validity })));
      }
    },
    dismissProblem: () => setWaits({ ceremonyAttempt: undefined }),
  };
}
