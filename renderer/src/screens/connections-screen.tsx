import { useState, type FormEvent } from 'react';
import { useDesk } from '../state/store';

interface Draft {
  name: string;
  baseUrl: string;
  clientId: string;
  secret: string;
}

const EMPTY: Draft = { name: '', baseUrl: '', clientId: '', secret: '' };

/** Connection profiles: the secret is typed here once and never shown again. */
export function ConnectionsScreen() {
  const profiles = useDesk((state) => state.profiles);
  const { saveProfile, deleteProfile, activateProfile, testProfile, useDemo } = useDesk.getState();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [editing, setEditing] = useState<string | undefined>();
  const [testResults, setTestResults] = useState<Record<string, { ok?: boolean; message: string }>>({});
  const [busy, setBusy] = useState(false);
  const editingProfile = profiles.find((profile) => profile.name === editing);
  // A saved secret only goes to the service it was saved for: a new address or client id needs it again.
  const movesService =
    editingProfile !== undefined &&
    (draft.baseUrl.trim().replace(/\/+$/, '') !== editingProfile.baseUrl ||
      draft.clientId.trim() !== editingProfile.clientId);
  const secretRequired = !editingProfile?.hasSecret || movesService;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    const saved = await saveProfile({
      name: draft.name,
      baseUrl: draft.baseUrl,
      clientId: draft.clientId,
      ...(draft.secret ? { secret: draft.secret } : {}),
    });
    setBusy(false);
    if (saved) {
      setDraft(EMPTY);
      setEditing(undefined);
    }
  }

  async function test(name: string) {
    setTestResults((results) => ({ ...results, [name]: { message: 'Testing…' } }));
    const result = await testProfile(name);
    setTestResults((results) => ({ ...results, [name]: result }));
  }

  return (
    <section aria-labelledby="connections-title" className="screen">
      <h2 id="connections-title">Connections</h2>
      <p className="hint">
        A connection is the signing service's address and this app's client id. The client secret is kept in
        your system keychain; the app never shows it again.
      </p>
      {profiles.length === 0 && (
        <div className="empty">
          <p>
            No connection yet. Add the one your administrator gave you, or try the app with the built-in
            simulator.
          </p>
          <button type="button" onClick={() => void useDemo()}>
            Use the demo connection
          </button>
        </div>
      )}
      {profiles.length > 0 && (
        <table className="table">
          <caption className="visually-hidden">Saved connections</caption>
          <thead>
            <tr>
              <th scope="col">Active</th>
              <th scope="col">Name</th>
              <th scope="col">Service address</th>
              <th scope="col">Client id</th>
              <th scope="col">Secret</th>
              <th scope="col">Actions</th>
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
                    onChange={() => void activateProfile(profile.name)}
                    aria-label={`Use ${profile.name}`}
                  />
                </td>
                <td>{profile.name}</td>
                <td>{profile.baseUrl}</td>
                <td>{profile.clientId}</td>
                <td>
                  {profile.demo
                    ? 'Built in (public demo credentials)'
                    : profile.hasSecret
                      ? 'Saved in keychain'
                      : profile.secretSavedFor
                        ? `Saved for ${profile.secretSavedFor}: this address was changed outside the app. Set it back, or delete this connection and add it again.`
                        : 'Missing'}
                </td>
                <td>
                  <div className="actions">
                    <button type="button" onClick={() => void test(profile.name)}>
                      Test connection
                    </button>
                    <button
                      type="button"
                      onClick={() => {
                        setEditing(profile.name);
                        setDraft({
                          name: profile.name,
                          baseUrl: profile.baseUrl,
                          clientId: profile.clientId,
                          secret: '',
                        });
                      }}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => {
                        if (window.confirm(`Delete the connection "${profile.name}" and its saved secret?`))
                          void deleteProfile(profile.name);
                      }}
                    >
                      Delete
                    </button>
                    {testResults[profile.name] && (
                      <p
                        className={`test-result${testResults[profile.name]?.ok === true ? ' test-ok' : testResults[profile.name]?.ok === false ? ' test-failed' : ''}`}
                        role="status"
                      >
                        {testResults[profile.name]?.message}
                      </p>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        className="card form"
        onSubmit={(event) => void submit(event)}
        aria-labelledby="profile-form-title"
      >
        <h3 id="profile-form-title">{editing ? `Edit ${editing}` : 'Add a connection'}</h3>
        <label>
          Name
          <input
            required
            value={draft.name}
            readOnly={editing !== undefined}
            aria-describedby={editing !== undefined ? 'profile-name-hint' : undefined}
            onChange={(event) => setDraft({ ...draft, name: event.target.value })}
            placeholder="Production"
          />
          {editing !== undefined && (
            <span id="profile-name-hint" className="muted">
              A connection keeps its name; add a new one to use another name.
            </span>
          )}
        </label>
        <label>
          Service address (base URL)
          <input
            required
            type="url"
            value={draft.baseUrl}
            onChange={(event) => setDraft({ ...draft, baseUrl: event.target.value })}
            placeholder="https://sign.example.com"
          />
        </label>
        <label>
          Client id
          <input
            required
            value={draft.clientId}
            onChange={(event) => setDraft({ ...draft, clientId: event.target.value })}
          />
        </label>
        <label>
          Client secret
          <input
            type="password"
            autoComplete="off"
            value={draft.secret}
            required={secretRequired}
            aria-describedby={movesService ? 'profile-secret-hint' : undefined}
            onChange={(event) => setDraft({ ...draft, secret: event.target.value })}
            placeholder={
              editingProfile?.hasSecret && !movesService ? 'Saved — type a new one to replace it' : ''
            }
          />
          {movesService && (
            <span id="profile-secret-hint" className="muted">
              The address or client id changed: type the client secret again. A saved secret is only sent to
              the service it was saved for.
            </span>
          )}
        </label>
        <div className="row">
          <button type="submit" className="primary" disabled={busy}>
            Save connection
          </button>
          {editing && (
            <button
              type="button"
              onClick={() => {
                setEditing(undefined);
                setDraft(EMPTY);
              }}
            >
              Cancel
            </button>
          )}
          {profiles.length > 0 && !profiles.some((profile) => profile.demo) && (
            <button type="button" onClick={() => void useDemo()}>
              Use the demo connection
            </button>
          )}
        </div>
      </form>
    </section>
  );
}
