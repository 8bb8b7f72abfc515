/**
 * The ways a file of the data folder that the profiles depend on (profiles.json, keychain-id.json)
 * can fail. Shared by the profile store and the data folder's keychain identity, so both answer
 * with the same values.
 */

/** The file exists but cannot be read as what it should hold; it is left untouched. */
export interface SettingsUnreadable {
  readonly code: 'settings_unreadable';
  readonly message: string;
  readonly detail: string;
}

/** The file could not be written (disk full, read-only folder…); nothing changed. */
export interface SettingsNotSaved {
  readonly code: 'settings_not_saved';
  readonly message: string;
  readonly detail: string;
}
