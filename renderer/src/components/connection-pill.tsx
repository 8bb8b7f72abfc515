import { connectionLabel } from '../../../shared/i18n/connection-label';
import { useT } from '../i18n';
import { headerConnection } from '../state/connection-status';
import { useDesk } from '../state/store';

/**
 * The top bar's account of the connection new batches go to, true whatever was deleted: the
 * active one; "none active" among those saved, with the way to choose one (Connections); or none
 * at all yet.
 */
export function ConnectionPill() {
  const t = useT();
  const profiles = useDesk((state) => state.profiles);
  const navigate = useDesk((state) => state.actions.page.navigate);
  const connection = headerConnection(profiles);
  if (connection.kind === 'noneActive')
    return (
      <button
        type="button"
        className="connection-pill link"
        onClick={() => navigate({ name: 'connections' })}
      >
        {t('common.noActiveConnection', { count: connection.saved })}
      </button>
    );
  return (
    <span className="connection-pill">
      {connection.kind === 'active'
        ? t('common.activeConnection', { name: connectionLabel(connection.profile, t) })
        : t('common.noConnectionYet')}
    </span>
  );
}
