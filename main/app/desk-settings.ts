/**
 * The person's settings that outlive a restart: the language the desk speaks and whether
 * tracking is paused. One small file, `<dataDir>/settings.json`, replaced atomically; a missing
 * or unreadable file gives the defaults (nothing else depends on it).
 */
import { join } from 'node:path';
import { z } from 'zod';
import { languageSettingSchema, type LanguageSetting } from '../../shared/i18n/languages';
import { writeFileAtomic } from '../store/durable-fs';
import { readOwnFileSync } from '../store/own-file';

/** A settings file is a few lines; anything larger is not one this app wrote. */
const SETTINGS_FILE_LIMIT = 64 * 1024;

const settingsSchema = z.object({
  language: languageSettingSchema.catch('system').default('system'),
  trackingPaused: z.boolean().catch(false).default(false),
});

export interface DeskSettings {
  readonly language: LanguageSetting;
  readonly trackingPaused: boolean;
}

export class SettingsFile {
  readonly #path: string;
  #current: DeskSettings;
  #writing: Promise<void> = Promise.resolve();

  constructor(dataDirPath: string) {
    this.#path = join(dataDirPath, 'settings.json');
    this.#current = SettingsFile.#read(this.#path);
  }

  static #read(path: string): DeskSettings {
    try {
      // Opened without blocking or following a link: a FIFO in its place must not hang the start.
      const text = readOwnFileSync(path, SETTINGS_FILE_LIMIT);
      return settingsSchema.parse(text === undefined ? {} : JSON.parse(text));
    } catch {
      return settingsSchema.parse({});
    }
  }

  get(): DeskSettings {
    return this.#current;
  }

  /** Changes settings now; the file follows, in order (the last change wins on disk too). */
  update(change: Partial<DeskSettings>): Promise<void> {
    this.#current = { ...this.#current, ...change };
    const contents = `${JSON.stringify(this.#current, null, 2)}\n`;
    this.#writing = this.#writing.then(() => writeFileAtomic(this.#path, contents)).catch(() => undefined);
    return this.#writing;
  }
}
