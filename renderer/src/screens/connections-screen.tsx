import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { ProfileView } from '../../../shared/ipc/views';
import {
  KEY_RETENTION_HOURS_MAX,
  KEY_RETENTION_HOURS_MIN,
  readKeyRetentionHours,
} from '../../../shared/domain/key-retention';
import { connectionLabel } from '../../../shared/i18n/connection-label';
import { useT } from '../i18n';
import { useDesk } from '../state/store';
import { DeleteConnectionDialog } from './delete-connection-dialog';

interface Draft {
  name: string;
  baseUrl: string;
  clientId: string;
  secret: string;
  /** Hours, as typed; empty: the app's default. */
  keyRetentionHours: string;
}

const EMPTY: Draft = { name: '', baseUrl: '', clientId: '', secret: '', keyRetentionHours: '' };

/**
 * Connection profiles: the secret is typed here once and never shown again. What goes wrong
 * with a save is said in the form, where the person is; a keychain that keeps the save waiting
 * (its own prompt) is said within a second, with a way to stop waiting.
 */
/** What a connection's row says of its test: on its way, slow, or its answer. */
interface TestShown {
  readonly ok?: boolean;
  readonly message: string;
  readonly slow?: boolean;
}

/** Where the Connections screen puts the focus once an action's outcome is shown. */
type FocusTarget =
  | { readonly kind: 'heading' | 'form' | 'refusal' }
  | { readonly kind: 'test' | 'edit'; readonly name: string };

/** How long a test may wait for the service before the row says it is slow to answer. */
const SLOW_TEST_MS = 2_000;

export function ConnectionsScreen() {
  const t = useT();
  const profiles = useDesk((state) => state.profiles);
  const keychainWaiting = useDesk((state) => state.keychainWaiting);
  const { actions } = useDesk.getState();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [editing, setEditing] = useState<string | undefined>();
  const [testResults, setTestResults] = useState<Record<string, TestShown>>({});
  /** Which test of each connection the row waits for: one the person stopped waiting for is ignored. */
  const testRuns = useRef<Record<string, number>>({});
  /** The name of the save on its way, which the form waits for; undefined when none. */
  const [saving, setSaving] = useState<string | undefined>();
  /** Which save the form waits for: one the person stopped waiting for ends elsewhere. */
  const awaited = useRef(0);
  const [saveError, setSaveError] = useState<string | undefined>();
  /** A save the person stopped waiting for: it ends when the keychain answers. */
  const [leftWaiting, setLeftWaiting] = useState<string | undefined>();
  /** The connection whose deletion is being decided, in its dialog. */
  const [deleting, setDeleting] = useState<ProfileView | undefined>();
  /**
   * Where the focus goes once the screen shows the outcome of an action (README "Using the app",
   * keyboard): the screen's heading once a row is deleted, a saved row's Test button, the form's
   * first field to change, a row's Edit button once its edit is cancelled, or the form's refusal.
   */
  const [focusTarget, setFocusTarget] = useState<FocusTarget | undefined>();
  const heading = useRef<HTMLHeadingElement>(null);
  const addressField = useRef<HTMLInputElement>(null);
  const nameField = useRef<HTMLInputElement>(null);
  const saveErrorText = useRef<HTMLParagraphElement>(null);
  const rowButtons = useRef(new Map<string, HTMLButtonElement>());
  /** Keeps a row's button by `"<kind> <name>"`, for the focus to go back to. */
  const remember = (key: string) => (element: HTMLButtonElement | null) => {
    if (element) rowButtons.current.set(key, element);
    else rowButtons.current.delete(key);
  };
  const editingProfile = profiles.find((profile) => profile.name === editing);
  // A saved secret only goes to the service it was saved for: a new address or client id needs it again.
  const movesService =
    editingProfile !== undefined &&
    (draft.baseUrl.trim().replace(/\/+$/, '') !== editingProfile.baseUrl ||
      draft.clientId.trim() !== editingProfile.clientId);
  const secretRequired = !editingProfile?.hasSecret || movesService;

  /**
   * A field edited: main's refusal was of what was saved, so it goes (a stale reason beside a
   * changed field misleads; the next save says anew what is still wrong).
   */
  function edit(field: keyof Draft, value: string) {
    setDraft((current) => ({ ...current, [field]: value }));
    setSaveError(undefined);
  }

  function reset() {
    setDraft(EMPTY);
    setEditing(undefined);
    setSaveError(undefined);
  }

  useEffect(() => {
    if (!focusTarget) return;
    const named = 'name' in focusTarget ? focusTarget.name : undefined;
    const element =
      named !== undefined
        ? rowButtons.current.get(`${focusTarget.kind} ${named}`)
        : focusTarget.kind === 'form'
          ? (editing !== undefined ? addressField : nameField).current
          : focusTarget.kind === 'refusal'
            ? saveErrorText.current
            : heading.current;
    // A row main does not list (its name spelt otherwise): the heading, rather than nowhere.
    const listed = named === undefined || profiles.some((profile) => profile.name === named);
    // Not drawn yet: tried again at the next render.
    if (!element && listed) return;
    (element ?? heading.current)?.focus();
    setFocusTarget(undefined);
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const name = draft.name.trim();
    // Hours as typed, read here: a word or a number out of bounds is said in the person's language.
    const retention = readKeyRetentionHours(draft.keyRetentionHours);
    if (!retention.ok) {
      setSaveError(
        t('connections.keyRetentionInvalid', { min: KEY_RETENTION_HOURS_MIN, max: KEY_RETENTION_HOURS_MAX }),
      );
      setFocusTarget({ kind: 'refusal' });
      return;
    }
    const id = (awaited.current += 1);
    setSaving(name);
    setSaveError(undefined);
    setLeftWaiting(undefined);
    const answer = await actions.profiles.save({
      name: draft.name,
      baseUrl: draft.baseUrl,
      clientId: draft.clientId,
      ...(draft.secret ? { secret: draft.secret } : {}),
      // Empty: the app's default (main checks the bounds again).
      ...(retention.value === undefined ? {} : { keyRetentionHours: retention.value }),
    });
    if (awaited.current !== id) {
      // The person stopped waiting for it: say how it ended, wherever they are now.
      if (!answer.ok)
        actions.page.notify('error', t('connections.notSavedLater', { name, message: answer.error }));
      else actions.page.notify('success', t('connections.savedLater', { name }));
      setLeftWaiting((left) => (left === name ? undefined : left));
      return;
    }
    setSaving(undefined);
    if (answer.ok) {
      reset();
      // The saved connection's next step: testing it.
      setFocusTarget({ kind: 'test', name });
    } else {
      setSaveError(answer.error);
      setFocusTarget({ kind: 'refusal' });
    }
  }

  /** The save goes on in main; the form is free again, and says what becomes of the save. */
  function stopWaiting() {
    if (saving === undefined) return;
    awaited.current += 1;
    setLeftWaiting(saving);
    setSaving(undefined);
    reset();
  }

  async function test(name: string) {
    const run = (testRuns.current[name] ?? 0) + 1;
    testRuns.current[name] = run;
    const show = (shown: TestShown) => {
      if (testRuns.current[name] === run) setTestResults((results) => ({ ...results, [name]: shown }));
    };
    show({ message: t('connections.testing') });
    // A service that keeps the test waiting is said within seconds, with a way out.
    const slow = setTimeout(() => show({ message: t('waits.serviceSlow'), slow: true }), SLOW_TEST_MS);
    const result = await actions.profiles.test(name);
    clearTimeout(slow);
    show(result);
  }

  function stopTesting(name: string) {
    testRuns.current[name] = (testRuns.current[name] ?? 0) + 1;
    setTestResults((results) => ({
      ...results,
      [name]: { ok: false, message: t('connections.testStopped') },
    }));
  }

  return (
    <section aria-labelledby="connections-title" className="screen">
      <h2 id="connections-title" ref={heading} tabIndex={-1}>
        {t('connections.title')}
      </h2>
      <p className="hint">{t('connections.intro')}</p>
      {profiles.length > 0 && !profiles.some((profile) => profile.active) && (
        <p className="banner" role="status">
          {t('connections.noneActive')}
        </p>
      )}
      {keychainWaiting && saving === undefined && (
        <p className="banner" role="status">
          {t('waits.keychain')} {t('waits.keychainHelp')}
        </p>
      )}
      {profiles.length === 0 && (
        <div className="empty">
          <p>{t('connections.empty')}</p>
          <button type="button" onClick={() => void actions.profiles.useDemo()}>
            {t('connections.useDemo')}
          </button>
        </div>
      )}
      {profiles.length > 0 && (
        <table className="table">
          <caption className="visually-hidden">{t('connections.tableCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('connections.columnActive')}</th>
              <th scope="col">{t('connections.columnName')}</th>
              <th scope="col">{t('connections.columnAddress')}</th>
              <th scope="col">{t('connections.columnClientId')}</th>
              <th scope="col">{t('connections.columnSecret')}</th>
              <th scope="col">{t('connections.columnActions')}</th>
            </tr>
          </thead>
          <tbody>
            {profiles.map((profile) => (
              <tr key={profile.name}>
                <td>
                  <input
                    type="radio"
                    name="active-profile"
                    checked={profile.active}
                    onChange={() => void actions.profiles.activate(profile.name)}
                    aria-label={t('connections.use', { name: connectionLabel(profile, t) })}
                  />
                </td>
                <td>{connectionLabel(profile, t)}</td>
                <td>{profile.baseUrl}</td>
                <td>{profile.clientId}</td>
                <td>
                  {profile.demo
                    ? t('connections.secretDemo')
                    : profile.hasSecret
                      ? t('connections.secretSaved')
                      : profile.secretSavedFor
                        ? t('connections.secretSavedFor', { address: profile.secretSavedFor })
                        : t('connections.secretMissing')}
                </td>
                <td>
                  <div className="actions">
                    <button
                      ref={remember(`test ${profile.name}`)}
                      type="button"
                      onClick={() => void test(profile.name)}
                    >
                      {t('connections.test')}
                    </button>
                    {/* The demo connection is the simulator's own: its name and secret are not the person's to change. */}
                    {!profile.demo && (
                      <button
                        ref={remember(`edit ${profile.name}`)}
                        type="button"
                        onClick={() => {
                          setEditing(profile.name);
                          setFocusTarget({ kind: 'form' });
                          setSaveError(undefined);
                          setDraft({
                            name: profile.name,
                            baseUrl: profile.baseUrl,
                            clientId: profile.clientId,
                            secret: '',
                            keyRetentionHours:
                              profile.keyRetentionHours === undefined
                                ? ''
                                : String(profile.keyRetentionHours),
                          });
                        }}
                      >
                        {t('connections.edit')}
                      </button>
                    )}
                    <button type="button" className="danger" onClick={() => setDeleting(profile)}>
                      {t('connections.delete')}
                    </button>
                    {testResults[profile.name] && (
                      <p
                        className={`test-result${testResults[profile.name]?.ok === true ? ' test-ok' : testResults[profile.name]?.ok === false ? ' test-failed' : ''}`}
                        role="status"
                      >
                        {testResults[profile.name]?.message}
                        {testResults[profile.name]?.slow && (
                          <>
                            {' '}
                            <button type="button" onClick={() => stopTesting(profile.name)}>
                              {t('waits.keychainStopWaiting')}
                            </button>
                          </>
                        )}
                      </p>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deleting && (
        <DeleteConnectionDialog
          profile={deleting}
          onClose={(deleted) => {
            setDeleting(undefined);
            // Its row is gone: the focus goes to the screen's heading, not to the page's body.
            if (deleted) setFocusTarget({ kind: 'heading' });
          }}
        />
      )}
      {leftWaiting !== undefined && (
        <p className="banner" role="status">
          {t('waits.keychainLeft', { name: leftWaiting })}
        </p>
      )}
      <form
        className="card form"
        onSubmit={(event) => void submit(event)}
        aria-labelledby="profile-form-title"
        aria-busy={saving !== undefined}
      >
        <h3 id="profile-form-title">
          {editing ? t('connections.formEdit', { name: editing }) : t('connections.formAdd')}
        </h3>
        <label>
          {t('connections.name')}
          <input
            ref={nameField}
            required
            value={draft.name}
            readOnly={editing !== undefined}
            aria-describedby={editing !== undefined ? 'profile-name-hint' : undefined}
            onChange={(event) => edit('name', event.target.value)}
            placeholder={t('connections.namePlaceholder')}
          />
          {editing !== undefined && (
            <span id="profile-name-hint" className="muted">
              {t('connections.nameKept')}
            </span>
          )}
        </label>
        <label>
          {t('connections.baseUrl')}
          <input
            ref={addressField}
            required
            // Text, not type="url": the browser's own check would speak instead of the app's rule
            // (main/client/base-url.ts), e.g. for an address typed without https://.
            type="text"
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            value={draft.baseUrl}
            onChange={(event) => edit('baseUrl', event.target.value)}
            placeholder="https://sign.example.com"
          />
        </label>
        <label>
          {t('connections.clientId')}
          <input required value={draft.clientId} onChange={(event) => edit('clientId', event.target.value)} />
        </label>
        <label>
          {t('connections.secret')}
          <input
            type="password"
            autoComplete="off"
            value={draft.secret}
            required={secretRequired}
            aria-describedby={movesService ? 'profile-secret-hint' : undefined}
            onChange={(event) => edit('secret', event.target.value)}
            placeholder={
              editingProfile?.hasSecret && !movesService ? t('connections.secretPlaceholderSaved') : ''
            }
          />
          {movesService && (
            <span id="profile-secret-hint" className="muted">
              {t('connections.secretAgain')}
            </span>
          )}
        </label>
        <label>
          {t('connections.keyRetention')}
          <input
            type="text"
            inputMode="decimal"
            autoComplete="off"
            value={draft.keyRetentionHours}
            aria-describedby="profile-retention-hint"
            onChange={(event) => edit('keyRetentionHours', event.target.value)}
            placeholder="1"
          />
          <span id="profile-retention-hint" className="muted">
            {t('connections.keyRetentionHint')}
          </span>
        </label>
        {saveError !== undefined && (
          <p ref={saveErrorText} tabIndex={-1} className="field-error" role="alert">
            {t('connections.notSaved', { message: saveError })}
          </p>
        )}
        {saving !== undefined && keychainWaiting && (
          <div className="banner banner-with-action" role="status">
            <p>
              {t('waits.keychain')} {t('waits.keychainHelp')} {t('waits.keychainSaveHelp')}
            </p>
            <button type="button" onClick={stopWaiting}>
              {t('waits.keychainStopWaiting')}
            </button>
          </div>
        )}
        <div className="row">
          <button type="submit" className="primary" disabled={saving !== undefined}>
            {saving !== undefined ? t('connections.saving') : t('connections.save')}
          </button>
          {editing && (
            <button
              type="button"
              disabled={saving !== undefined}
              onClick={() => {
                // Back on the row whose edit was cancelled.
                if (editing !== undefined) setFocusTarget({ kind: 'edit', name: editing });
                reset();
              }}
            >
              {t('common.cancel')}
            </button>
          )}
          {profiles.length > 0 && !profiles.some((profile) => profile.demo) && (
            <button type="button" onClick={() => void actions.profiles.useDemo()}>
              {t('connections.useDemo')}
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
