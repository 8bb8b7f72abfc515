import { create } from 'zustand';
import { ADD_PATHS_MAX, type ChannelResult, type ProfileInput } from '../../../shared/ipc/contract';
import type { BatchDefaults } from '../../../shared/domain/batch';
import type { AddDocumentsResult, AppInfo, DocumentEdit, ManifestPreview } from '../../../shared/ipc/views';
import type { LanguageSetting } from '../../../shared/i18n/languages';
import { BridgeError, desk, unwrap } from '../bridge';
import type { MessageId } from '../../../shared/i18n/catalog';
import type { Translator } from '../../../shared/i18n/translator';
import {
  initialState,
  withBatchDetail,
  withBatchList,
  withBatchSummary,
  withLoadError,
  withFolderSkippedNotice,
  withNotAddedNotice,
  withNotice,
  withoutBatch,
  withoutNotice,
  withProfiles,
  withProgress,
  withScreen,
  withTrackingPaused,
  withTrackingChecked,
  withTrackingStatus,
  withStarting,
  withLanguage,
  withFirstScreen,
  type DeskState,
  type Notice,
  type Screen,
} from './transitions';

/** How main answered the user's resolution of a document that needs a check. */
export type CheckAnswer =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly message: string;
      /** Main could not check the request and asks the user to confirm the link ("Link anyway"). */
      readonly needsConfirmation: boolean;
    };

/** A ceremony being opened, or one that could not open and why (shown with "Try again"). */
export interface CeremonyAttempt {
  readonly batchId: string;
  readonly documentId: string;
  readonly reference: string;
  readonly state: 'opening' | 'failed';
  readonly message?: string;
}

/** The waits the desk shows within a second, each with a way out (PRODUCT.md "Nothing waits in silence"). */
export interface WaitsState {
  /** The system keychain keeps a call waiting: its own prompt may have opened. */
  readonly keychainWaiting: boolean;
  readonly ceremonyAttempt: CeremonyAttempt | undefined;
}

/**
 * What came of an import: done, or not, with the manifest's preview read anew when main refused it
 * for problems in the file (it changed since its preview), for the panel to show them.
 */
export type ImportAnswer =
  { readonly imported: true } | { readonly imported: false; readonly preview: ManifestPreview | undefined };

/** The code main gives an import it refused for problems in the manifest. */
const MANIFEST_INVALID = 'manifest_invalid';

/** How main answered a save of a connection: a failure comes back for the form to show. */
export type SaveAnswer = { readonly ok: true } | { readonly ok: false; readonly message: string };

export interface DeskActions {
  connect(): () => void;
  /** Reads the app's info, batches, connections and the open batch anew (after the backend came back). */
  resync(): Promise<void>;
  /** The language setting ("system" follows the OS): kept by main, spoken at once. */
  setLanguage(setting: LanguageSetting): Promise<void>;
  navigate(screen: Screen): void;
  notify(kind: Notice['kind'], text: string): void;
  dismiss(id: number): void;
  /** Copies text to the clipboard and says so (or why it could not). */
  copyText(text: string, confirmation: string): Promise<void>;
  refreshBatches(): Promise<void>;
  loadBatch(batchId: string): Promise<void>;
  createBatch(name: string): Promise<void>;
  renameBatch(batchId: string, name: string): Promise<void>;
  setDefaults(batchId: string, defaults: BatchDefaults): Promise<void>;
  deleteBatch(batchId: string): Promise<void>;
  addPdfs(batchId: string, source: 'files' | 'folder' | string[]): Promise<void>;
  /** Files dropped on the batch: PDFs are added, anything else is named and left out. */
  addDroppedFiles(batchId: string, files: readonly File[]): Promise<void>;
  /** Saves a document's edit; main's refusal comes back in words for the editor (not a notice behind it), undefined once saved. */
  updateDocument(batchId: string, documentId: string, edit: DocumentEdit): Promise<string | undefined>;
  removeDocument(batchId: string, documentId: string): Promise<void>;
  pickManifest(): Promise<ManifestPreview | undefined>;
  previewManifest(path: string): Promise<ManifestPreview | undefined>;
  importManifest(batchId: string, path: string): Promise<ImportAnswer>;
  /**
   * The `sending.*` channels, with feedback: a second Resume while the first is on its way waits.
   * Sending never-queued documents is the review's own (ReviewDialog, `sending.start`).
   */
  readonly sending: {
    /** "Resume sending": only the documents already queued go on. */
    resume(batchId: string): Promise<void>;
    pause(batchId: string): Promise<void>;
    retry(batchId: string, documentId: string): Promise<void>;
    /** A batch waiting for its service tries again at once ("Try now"). */
    tryNow(batchId: string): Promise<void>;
    /** `sending.retry` for each of `documentIds`, in turn. */
    retryFailed(batchId: string, documentIds: readonly string[]): Promise<void>;
    /**
     * Links the request the service holds to a document that needs a check, and says so in a fading
     * notice. A refusal comes back with main's words (for the dialog the user is in, not a notice
     * behind it); `needsConfirmation` when main asks the user to confirm a link it could not check,
     * which `{ confirmed: true }` then gives.
     */
    linkRequest(
      batchId: string,
      documentId: string,
      requestId: string,
      options?: { readonly confirmed?: boolean },
    ): Promise<CheckAnswer>;
    /**
     * Sends a document that needs a check as a new request, on purpose, and says so in a fading
     * notice; a refusal comes back with main's words, for the dialog the user is in.
     */
    sendAsNew(batchId: string, documentId: string): Promise<CheckAnswer>;
  };
  /** The `ceremony.*` channel: opens a document's signing ceremony in its own window. */
  readonly ceremony: {
    /** Opens it; while it opens, and when it cannot, `ceremonyAttempt` says so (with the reason). */
    open(batchId: string, documentId: string): Promise<void>;
    /** Forgets a ceremony that could not open. */
    dismissProblem(): void;
  };
  /** The `tracking.*` channels. */
  readonly tracking: {
    refreshNow(batchId?: string): Promise<void>;
    /** A request its service said was gone: read it once more; tracked again if it answers. */
    checkAgain(batchId: string, documentId: string): Promise<void>;
    setPaused(paused: boolean): Promise<void>;
  };
  /** The `report.*` channel: saves a batch's report where the user chooses. */
  readonly report: {
    export(batchId: string): Promise<void>;
  };
  loadProfiles(): Promise<void>;
  /** Saves a connection; a refusal comes back with main's words, for the form the user is in. */
  saveProfile(input: ProfileInput): Promise<SaveAnswer>;
  deleteProfile(name: string): Promise<void>;
  activateProfile(name: string): Promise<void>;
  testProfile(name: string): Promise<{ readonly ok: boolean; readonly message: string }>;
  useDemo(): Promise<void>;
}

/**
 * Failures of the way to main rather than of an operation, worded here in the current language
 * by their code: the browser host's bridge and main's dispatcher report them (an operation's own
 * failures come from main already in the person's language).
 */
const BRIDGE_FAILURES: Readonly<Record<string, MessageId>> = {
  bridge_unavailable: 'host.unavailable',
  bridge_disconnected: 'host.lostAnswer',
  bridge_no_answer: 'host.noAnswer',
  invalid_arguments: 'host.invalidArguments',
  internal_error: 'errors.internal',
  unknown_channel: 'errors.unknownChannel',
  invalid_message: 'host.invalidMessage',
  forbidden_sender: 'host.forbiddenSender',
};

/** What a user reads for a failed call, in `translator`'s language. */
export function failureText(error: unknown, translator: Translator): string {
  if (!(error instanceof BridgeError)) return translator.t('common.unexpected');
  const own = BRIDGE_FAILURES[error.code];
  return own ? translator.t(own) : error.message;
}

/** Runs a bridge call; a failure becomes an error notice with the app's own message. */
async function attempt<T>(
  set: (fn: (state: DeskState) => DeskState) => void,
  call: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    set((state) => withNotice(state, 'error', failureText(error, state.translator)));
    return undefined;
  }
}

/** The code main gives a link it could not check, for the user to confirm (PRODUCT.md "needs your check"). */
const LINK_NEEDS_CONFIRMATION = 'link_needs_confirmation';

/**
 * Runs a resolution of a document that needs a check. A failure is returned, not shown as a
 * notice: the dialog the user is in shows it.
 */
async function checkAnswer(call: () => Promise<unknown>, translator: Translator): Promise<CheckAnswer> {
  try {
    await call();
    return { ok: true };
  } catch (error) {
    return {
      ok: false,
      message: failureText(error, translator),
      needsConfirmation: error instanceof BridgeError && error.code === LINK_NEEDS_CONFIRMATION,
    };
  }
}

/** Re-reads a batch at most every 250 ms while events stream in, so big batches stay smooth. */
function throttled(load: (batchId: string) => void): (batchId: string) => void {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  return (batchId) => {
    if (timers.has(batchId)) return;
    timers.set(
      batchId,
      setTimeout(() => {
        timers.delete(batchId);
        load(batchId);
      }, 250),
    );
  };
}

/** The renderer's store: state mirrored from main, and the actions screens call. */
export const useDesk = create<DeskState & WaitsState & DeskActions>((setState, get) => {
  const set = (fn: (state: DeskState) => DeskState) => setState((state) => fn(state));
  /** The current language's words (read at the time of the message). */
  const t: Translator['t'] = (id, values) => get().translator.t(id, values);
  const setWaits = (waits: Partial<WaitsState>) => setState(waits);

  /**
   * Adds files by path, in calls of at most ADD_PATHS_MAX files (so no pick is refused for its
   * count); says in one notice what was added and in one why any files were not.
   */
  async function addPaths(batchId: string, paths: readonly string[], folder?: string): Promise<void> {
    let added = 0;
    const rejected: AddDocumentsResult['rejected'][number][] = [];
    for (let start = 0; start < paths.length; start += ADD_PATHS_MAX) {
      const chunk = paths.slice(start, start + ADD_PATHS_MAX);
      const result = await attempt(set, () =>
        unwrap(desk().documents.addPaths(batchId, chunk, ...(folder === undefined ? [] : [folder]))),
      );
      if (!result) {
        if (start === 0) return; // nothing happened: the notice says why
        break;
      }
      added += result.added;
      rejected.push(...result.rejected);
    }
    if (added > 0) set((state) => withNotice(state, 'success', t('batches.added', { count: added })));
    set((state) => withNotAddedNotice(state, rejected));
    await get().loadBatch(batchId);
  }
  /** The reference of a document of a loaded batch, for messages. */
  function referenceOf(batchId: string, documentId: string): string | undefined {
    return get().details[batchId]?.documents.find((document) => document.id === documentId)
      ?.externalReference;
  }

  /** The app's info, and the language it says the desk speaks. */
  function showInfo(info: AppInfo): void {
    set((state) => withLanguage({ ...state, info }, info.language, info.locale));
  }

  const reloadDetail = throttled((batchId) => {
    if (get().screen.name === 'batch' && get().details[batchId]) void get().loadBatch(batchId);
  });

  return {
    ...initialState,
    keychainWaiting: false,
    ceremonyAttempt: undefined,

    connect() {
      const api = desk();
      const unsubscribers = [
        api.events.batch.changed(({ batch }) => {
          set((state) => withBatchSummary(state, batch));
          reloadDetail(batch.id);
        }),
        api.events.batch.deleted(({ batchId }) => set((state) => withoutBatch(state, batchId))),
        api.events.sending.progress((payload) => set((state) => withProgress(state, payload))),
        api.events.sending.state(({ batchId, engine }) => {
          if (engine.state === 'stopped' && engine.reason)
            set((state) => withNotice(state, 'error', engine.reason ?? ''));
          reloadDetail(batchId);
        }),
        api.events.tracking.status((payload) => set((state) => withTrackingStatus(state, payload))),
        api.events.tracking.checked((payload) => set((state) => withTrackingChecked(state, payload))),
        api.events.tracking.completed(({ externalReference, batchId }) => {
          set((state) =>
            withNotice(state, 'success', t('common.fullySigned', { reference: externalReference })),
          );
          reloadDetail(batchId);
        }),
        // The ceremony window closed: its document's state may have moved on.
        api.events.ceremony.closed(({ batchId }) => reloadDetail(batchId)),
        api.events.profiles.changed(({ profiles }) => set((state) => withProfiles(state, profiles))),
        api.events.tracking.paused(({ paused }) => set((state) => withTrackingPaused(state, paused))),
        api.events.keychain.waiting(({ waiting }) => setWaits({ keychainWaiting: waiting })),
      ];
      void get().resync();
      return () => unsubscribers.forEach((unsubscribe) => unsubscribe());
    },

    async resync() {
      await attempt(set, async () => {
        showInfo(await unwrap(desk().app.info()));
        await Promise.all([get().refreshBatches(), get().loadProfiles()]);
        set(withFirstScreen);
      });
      const screen = get().screen;
      if (screen.name === 'batch') await get().loadBatch(screen.batchId);
    },

    async setLanguage(setting) {
      const info = await attempt(set, () => unwrap(desk().app.setLanguage(setting)));
      if (info) showInfo(info);
    },

    navigate(screen) {
      set((state) => withScreen(state, screen));
      if (screen.name === 'batch') void get().loadBatch(screen.batchId);
    },
    notify: (kind, text) => set((state) => withNotice(state, kind, text)),
    dismiss: (id) => set((state) => withoutNotice(state, id)),
    async copyText(text, confirmation) {
      try {
        await navigator.clipboard.writeText(text);
        set((state) => withNotice(state, 'success', confirmation));
      } catch {
        set((state) => withNotice(state, 'error', t('common.clipboardUnavailable')));
      }
    },

    async refreshBatches() {
      const batches = await attempt(set, () => unwrap(desk().batches.list()));
      if (batches) set((state) => withBatchList(state, batches));
    },
    async loadBatch(batchId) {
      try {
        const detail = await unwrap(desk().batches.get(batchId));
        set((state) => withBatchDetail(state, detail));
      } catch (error) {
        const text =
          error instanceof BridgeError ? failureText(error, get().translator) : t('batches.loadFailed');
        set((state) => withLoadError(state, batchId, text));
      }
    },
    async createBatch(name) {
      const from = get().screen;
      const batch = await attempt(set, () => unwrap(desk().batches.create(name)));
      if (batch) {
        set((state) => withBatchSummary(state, batch));
        // Opened only if the person is still where they asked for it: one who went elsewhere
        // meanwhile, or clicked Batches again (a new screen object, by `navigate`), is not taken
        // away; the new batch is in the list.
        if (get().screen === from) get().navigate({ name: 'batch', batchId: batch.id });
      }
    },
    async renameBatch(batchId, name) {
      const batch = await attempt(set, () => unwrap(desk().batches.rename(batchId, name)));
      if (batch) set((state) => withBatchSummary(state, batch));
    },
    async setDefaults(batchId, defaults) {
      const batch = await attempt(set, () => unwrap(desk().batches.setDefaults(batchId, defaults)));
      if (batch) await get().loadBatch(batchId);
    },
    async deleteBatch(batchId) {
      const done = await attempt(set, () => unwrap(desk().batches.delete(batchId)));
      if (done === null) set((state) => withoutBatch(state, batchId));
    },
    async addPdfs(batchId, source) {
      const api = desk();
      if (source === 'folder') {
        // A folder's files must stay inside it: main checks them against the folder picked.
        const picked = await attempt(set, () => unwrap(api.dialogs.pickFolder()));
        if (!picked) return;
        // Said before the adding, so it is not pushed away by the adding's own notices.
        set((state) => withFolderSkippedNotice(state, picked.skipped));
        if (picked.paths.length > 0) await addPaths(batchId, picked.paths, picked.folder);
        return;
      }
      const paths = await attempt(set, () =>
        Array.isArray(source) ? Promise.resolve(source) : unwrap(api.dialogs.pickPdfs()),
      );
      if (!paths || paths.length === 0) return;
      await addPaths(batchId, paths);
    },
    async addDroppedFiles(batchId, files) {
      const api = desk();
      const paths: string[] = [];
      const skipped: string[] = [];
      for (const file of files) {
        const path = /\.pdf$/i.test(file.name) ? api.pathForFile(file) : undefined;
        if (path) paths.push(path);
        else skipped.push(file.name);
      }
      if (skipped.length > 0) {
        const browserCannotRead =
          api.host === 'browser' && paths.length === 0 && files.some((file) => /\.pdf$/i.test(file.name));
        const names = skipped.join(', ');
        set((state) =>
          withNotice(
            state,
            'error',
            browserCannotRead ? t('host.dropNotReadable', { names }) : t('batches.dropOnlyPdfs', { names }),
          ),
        );
      }
      if (paths.length > 0) await addPaths(batchId, paths);
    },
    async updateDocument(batchId, documentId, edit) {
      const answer = await checkAnswer(async () => {
        const detail = await unwrap(desk().documents.update(batchId, documentId, edit));
        set((state) => withBatchDetail(state, detail));
      }, get().translator);
      return answer.ok ? undefined : answer.message;
    },
    async removeDocument(batchId, documentId) {
      const detail = await attempt(set, () => unwrap(desk().documents.remove(batchId, documentId)));
      if (detail) set((state) => withBatchDetail(state, detail));
    },
    async pickManifest() {
      const path = await attempt(set, () => unwrap(desk().dialogs.pickManifest()));
      return path ? get().previewManifest(path) : undefined;
    },
    previewManifest: (path) => attempt(set, () => unwrap(desk().manifest.preview(path))),
    async importManifest(batchId, path) {
      let result: ChannelResult<'manifest.import'>;
      try {
        result = await unwrap(desk().manifest.import(batchId, path));
      } catch (error) {
        set((state) => withNotice(state, 'error', failureText(error, state.translator)));
        // The file changed since its preview and main found problems in it: the panel shows them
        // now, not the old preview with its Import button.
        const invalid = error instanceof BridgeError && error.code === MANIFEST_INVALID;
        return { imported: false, preview: invalid ? await get().previewManifest(path) : undefined };
      }
      set((state) =>
        withNotice(
          state,
          'success',
          t('manifest.imported', {
            added: result.added,
            updated: result.updated,
            unchanged: result.unchanged,
          }),
        ),
      );
      set((state) => withNotAddedNotice(state, result.rejected));
      for (const reference of result.lockedChanges) {
        set((state) => withNotice(state, 'info', t('manifest.lockedChange', { reference })));
      }
      await get().loadBatch(batchId);
      return { imported: true };
    },
    sending: {
      async resume(batchId) {
        if (get().starting[batchId]) return; // a second click while the first is on its way
        set((state) => withStarting(state, batchId, true));
        try {
          await attempt(set, () => unwrap(desk().sending.resume(batchId)));
        } finally {
          set((state) => withStarting(state, batchId, false));
        }
      },
      async pause(batchId) {
        await attempt(set, () => unwrap(desk().sending.pause(batchId)));
      },
      async retry(batchId, documentId) {
        await attempt(set, () => unwrap(desk().sending.retry(batchId, documentId)));
      },
      async tryNow(batchId) {
        await attempt(set, () => unwrap(desk().sending.tryNow(batchId)));
      },
      async retryFailed(batchId, documentIds) {
        for (const documentId of documentIds) await get().sending.retry(batchId, documentId);
      },
      async linkRequest(batchId, documentId, requestId, options) {
        const answer = await checkAnswer(() => {
          const sending = desk().sending;
          // Three arguments unless confirmed: the browser host's JSON would turn `undefined` into null.
          return unwrap(
            options?.confirmed
              ? sending.linkRequest(batchId, documentId, requestId, { confirmed: true })
              : sending.linkRequest(batchId, documentId, requestId),
          );
        }, get().translator);
        if (!answer.ok) return answer;
        const reference = referenceOf(batchId, documentId);
        set((state) =>
          withNotice(
            state,
            'success',
            reference ? t('check.linkedTo', { requestId, reference }) : t('check.linked', { requestId }),
          ),
        );
        await get().loadBatch(batchId);
        return answer;
      },
      async sendAsNew(batchId, documentId) {
        // A draft held back (another batch holds its reference) is not sent now: it joins the next review.
        const heldDraft = get().details[batchId]?.documents.some(
          (document) => document.id === documentId && document.heldBy !== undefined && !document.check,
        );
        const answer = await checkAnswer(
          () => unwrap(desk().sending.sendAsNew(batchId, documentId)),
          get().translator,
        );
        if (!answer.ok) return answer;
        const reference = referenceOf(batchId, documentId);
        set((state) =>
          withNotice(
            state,
            'success',
            heldDraft && reference
              ? t('check.heldAnewAccepted', { reference })
              : reference
                ? t('check.sentAsNew', { reference })
                : t('check.sentAsNewUnnamed'),
          ),
        );
        await get().loadBatch(batchId);
        return answer;
      },
    },
    ceremony: {
      async open(batchId, documentId) {
        const reference = referenceOf(batchId, documentId) ?? documentId;
        setWaits({ ceremonyAttempt: { batchId, documentId, reference, state: 'opening' } });
        let opened: ChannelResult<'ceremony.open'>;
        try {
          opened = await unwrap(desk().ceremony.open(batchId, documentId));
        } catch (error) {
          const message = error instanceof BridgeError ? error.message : t('common.unexpected');
          setWaits({ ceremonyAttempt: { batchId, documentId, reference, state: 'failed', message } });
          return;
        }
        setWaits({ ceremonyAttempt: undefined });
        if (opened.alreadyOpen) {
          set((state) => withNotice(state, 'info', t('common.ceremonyAlreadyOpen')));
        } else {
          const minutes = Math.max(1, Math.round(opened.expiresInSeconds / 60));
          set((state) => withNotice(state, 'info', t('common.ceremonyOpened', { minutes })));
        }
      },
      dismissProblem: () => setWaits({ ceremonyAttempt: undefined }),
    },
    tracking: {
      async refreshNow(batchId) {
        const refreshed = await attempt(set, () => unwrap(desk().tracking.refreshNow(batchId)));
        if (refreshed)
          set((state) => withNotice(state, 'info', t('common.refreshing', { count: refreshed.reading })));
      },
      async checkAgain(batchId, documentId) {
        const found = await attempt(set, async () => {
          await unwrap(desk().tracking.checkAgain(batchId, documentId));
          return true;
        });
        if (found) set((state) => withNotice(state, 'success', t('common.trackedAgain')));
      },
      async setPaused(paused) {
        await attempt(set, () => unwrap(desk().tracking.setPaused(paused)));
      },
    },
    report: {
      async export(batchId) {
        const path = await attempt(set, () => unwrap(desk().report.export(batchId)));
        if (path) set((state) => withNotice(state, 'success', t('common.reportSaved', { path })));
      },
    },
    async loadProfiles() {
      const profiles = await attempt(set, () => unwrap(desk().profiles.list()));
      if (profiles) set((state) => withProfiles(state, profiles));
    },
    async saveProfile(input) {
      let answer: SaveAnswer;
      try {
        const saved = await unwrap(desk().profiles.save(input));
        set((state) => withNotice(state, 'success', t('connections.saved', { name: saved.name })));
        answer = { ok: true };
      } catch (error) {
        answer = {
          ok: false,
          message: error instanceof BridgeError ? error.message : t('common.unexpected'),
        };
      }
      await get().loadProfiles();
      return answer;
    },
    async deleteProfile(name) {
      await attempt(set, () => unwrap(desk().profiles.delete(name)));
      await get().loadProfiles();
    },
    async activateProfile(name) {
      await attempt(set, () => unwrap(desk().profiles.activate(name)));
      await get().loadProfiles();
    },
    async testProfile(name) {
      let result: ChannelResult<'profiles.test'>;
      try {
        result = await unwrap(desk().profiles.test(name));
      } catch (error) {
        // Said in the connection's row, where the person asked.
        const message = error instanceof BridgeError ? error.message : t('common.unexpected');
        return { ok: false, message: t('connections.testNotRun', { message }) };
      }
      if (!result.ok) return { ok: false, message: t('connections.testFailed', { message: result.message }) };
      const scopes = result.scopes.join(', ') || t('connections.scopesNotStated');
      return {
        ok: true,
        message: result.expiresInSeconds
          ? t('connections.testOkFor', { minutes: Math.round(result.expiresInSeconds / 60), scopes })
          : t('connections.testOk', { scopes }),
      };
    },
    async useDemo() {
      const profile = await attempt(set, () => unwrap(desk().profiles.useDemo()));
      if (profile) set((state) => withNotice(state, 'success', t('connections.demoReady')));
      await get().loadProfiles();
    },
  };
});
