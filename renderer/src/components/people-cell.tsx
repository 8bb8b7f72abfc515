import type { Person } from '../../../shared/domain/people';
import { useT } from '../i18n';

/** People shown before the rest fold away; one more is shown rather than folded alone. */
const SHOWN = 3;

/**
 * Everyone who receives a document, as main lists them (`DocumentView.people`: its own
 * recipients, the batch's, and those added after creation, in signing order): each with their
 * signing order, name, role, whether they sign, and where they come from. The e-mail address
 * shows on hover and is read out by screen readers. Many people fold behind "N more people".
 */
export function PeopleCell({
  people,
  reference,
}: {
  readonly people: readonly Person[];
  readonly reference: string;
}) {
  const t = useT();
  if (people.length === 0) return null;
  const folded = people.length > SHOWN + 1;
  const shown = folded ? people.slice(0, SHOWN) : people;
  return (
    <>
      <ul className="people" aria-label={t('people.list', { reference })}>
        {shown.map((person, position) => (
          <PersonItem key={`${position}-${person.email}`} person={person} />
        ))}
      </ul>
      {folded && (
        <details className="people-more">
          <summary>{t('people.more', { count: people.length - SHOWN })}</summary>
          <ul className="people">
            {people.slice(SHOWN).map((person, position) => (
              <PersonItem key={`${position}-${person.email}`} person={person} />
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

function PersonItem({ person }: { readonly person: Person }) {
  const t = useT();
  const order = person.signing_order;
  return (
    <li className="recipient">
      {order !== undefined && (
        <span className="person-order" title={t('people.orderLabel', { order })}>
          {t('people.order', { order })}{' '}
        </span>
      )}
      <span title={person.email}>{person.name}</span>
      <span className="visually-hidden"> {person.email}</span>{' '}
      <span className="muted-inline">
        {person.role} · {t(person.participant_type === 'signer' ? 'people.signer' : 'people.observer')} ·{' '}
        {t(`people.source.${person.source}`)}
      </span>
    </li>
  );
}
