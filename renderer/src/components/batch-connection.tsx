import type { BatchSummary } from '../../../shared/ipc/views';
import { useT } from '../i18n';
import { batchConnection } from '../state/batch-connection';
import { useDesk } from '../state/store';

/**
 * Which connection the batch belongs to, on the batch itself: the one it was sent with (a batch
 * is continued and tracked with it only, whatever the top bar's active one is), or, before it is
 * sent, the active one it will go with.
 */
export function BatchConnection({ batch }: { readonly batch: Pick<BatchSummary, 'connection'> }) {
  const t = useT();
  const profiles = useDesk((state) => state.profiles);
  const own = batchConnection(batch, profiles);
  const active = profiles.find((profile) => profile.active);
  return (
    <p className="batch-connection">
      {own
        ? own.name !== undefined
          ? t('batch.connection', { name: own.name, host: own.host, clientId: own.clientId })
          : t('batch.connectionUnnamed', { host: own.host, clientId: own.clientId })
        : active
          ? t('batch.connectionNext', { name: active.name })
          : t('batch.connectionNone')}
    </p>
  );
}
