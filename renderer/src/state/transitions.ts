/**
 * The renderer's state and its transitions, as pure functions: main is the source of truth,
 * these only mirror what main reports (GitHub Desktop keeps its transitions apart the same way).
 */
import type { EventPayload } from '../../../shared/ipc/contract';
import type { AppInfo, BatchDetail, BatchSummary, ProfileView } from '../../../shared/ipc/views';
import { resolveLanguage } from '../../../shared/i18n/languages';
import { createTranslator, type Translator } from '../../../shared/i18n/translator';

export type Screen =
  | { readonly name: 'batches' }
  | { readonly name: 'batch'; readonly batchId: string }
  | { readonly name: 'connections' };

export interface Notice {
  readonly id: number;
  /**
   * Its tone: `success` only for what went as asked; `warning` for what the person should know
   * did not (a change not applied); `error` for a failure; `info` for the rest.
   */
  readonly kind: 'error' | 'warning' | 'info' | 'success';
  readonly text: string;
}

export interface Progress {
  readonly phase: EventPayload<'sending.progress'>['phase'];
  readonly sentBytes?: number;
  readonly totalBytes?: number;
  readonly upload?: EventPayload<'sending.progress'>['upload'];
}

export interface DeskState {
  readonly info: AppInfo | undefined;
  readonly profiles: readonly ProfileView[];
  readonly batches: Readonly<Record<string, BatchSummary>>;
  readonly details: Readonly<Record<string, BatchDetail>>;
  /** Live upload and step progress per `batchId/documentId`; never stored by main. */
  readonly progress: Readonly<Record<string, Progress>>;
  readonly screen: Screen;
  readonly notices: readonly Notice[];
  /** Why a batch could not be loaded, shown in place of its screen. */
  readonly loadErrors: Readonly<Record<string, string>>;
  /** Batches whose "Send" was asked and not answered yet: a second click waits. */
  readonly starting: Readonly<Record<string, true>>;
  /** The language the desk speaks now: main's answer (the setting or the OS), the browser's until it comes. */
  readonly translator: Translator;
}

function systemTranslator(): Translator {
  const preferred = typeof navigator === 'undefined' ? [] : navigator.languages;
  const { language, locale } = resolveLanguage('system', preferred);
  return createTranslator(language, locale);
}

export const initialState: DeskState = {
  info: undefined,
  profiles: [],
  batches: {},
  details: {},
  progress: {},
  screen: { name: 'batches' },
  notices: [],
  loadErrors: {},
  starting: {},
  translator: systemTranslator(),
};

/** Speaks `language` with `locale`'s dates and numbers (from app.info). */
export function withLanguage(state: DeskState, language: Translator['language'], locale: string): DeskState {
  if (state.translator.language === language && state.translator.locale === locale) return state;
  return { ...state, translator: createTranslator(language, locale) };
}

/** `batchId`'s send asked (`true`) or answered (`false`). */
export function withStarting(state: DeskState, batchId: string, starting: boolean): DeskState {
  const { [batchId]: _answered, ...others } = state.starting;
  return { ...state, starting: starting ? { ...others, [batchId]: true } : others };
}

/** The batches, newest activity first. */
export function sortedBatches(batches: DeskState['batches']): BatchSummary[] {
  return Object.values(batches).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}

/** The reference of a document of a loaded batch, for messages. */
export function referenceOf(state: DeskState, batchId: string, documentId: string): string | undefined {
  return state.details[batchId]?.documents.find((document) => document.id === documentId)?.externalReference;
}

export function withBatchList(state: DeskState, batches: readonly BatchSummary[]): DeskState {
  return { ...state, batches: Object.fromEntries(batches.map((batch) => [batch.id, batch])) };
}

export function withBatchSummary(state: DeskState, batch: BatchSummary): DeskState {
  const detail = state.details[batch.id];
  return {
    ...state,
    batches: { ...state.batches, [batch.id]: batch },
    details: detail ? { ...state.details, [batch.id]: withSummary(detail, batch) } : state.details,
  };
}

/** A batch's detail with its new summary: a connection problem the summary no longer has is gone. */
function withSummary(detail: BatchDetail, batch: BatchSummary): BatchDetail {
  const { connectionProblem: _previous, ...kept } = detail;
  return { ...kept, ...batch };
}

export function withBatchDetail(state: DeskState, detail: BatchDetail): DeskState {
  const { documents: _documents, defaults: _defaults, ...summary } = detail;
  const progress = Object.fromEntries(
    Object.entries(state.progress).filter(([key]) => {
      if (!key.startsWith(`${detail.id}/`)) return true;
      // Progress of documents that main now reports as done is dropped.
      const document = detail.documents.find((candidate) => key === `${detail.id}/${candidate.id}`);
      return document !== undefined && document.class === 'sending';
    }),
  );
  const { [detail.id]: _error, ...loadErrors } = state.loadErrors;
  return {
    ...state,
    batches: { ...state.batches, [detail.id]: summary },
    details: { ...state.details, [detail.id]: detail },
    progress,
    loadErrors,
  };
}

/** A batch could not be loaded: its screen says why instead of waiting forever. */
export function withLoadError(state: DeskState, batchId: string, message: string): DeskState {
  return { ...state, loadErrors: { ...state.loadErrors, [batchId]: message } };
}

export function withoutBatch(state: DeskState, batchId: string): DeskState {
  const { [batchId]: _removed, ...batches } = state.batches;
  const { [batchId]: _detail, ...details } = state.details;
  const screen =
    state.screen.name === 'batch' && state.screen.batchId === batchId
      ? { name: 'batches' as const }
      : state.screen;
  return { ...state, batches, details, screen };
}

export function withProgress(state: DeskState, payload: EventPayload<'sending.progress'>): DeskState {
  const key = `${payload.batchId}/${payload.documentId}`;
  const previous = state.progress[key];
  const next: Progress = {
    phase: payload.phase,
    ...(payload.sentBytes === undefined
      ? previous && payload.phase === 'uploading'
        ? { sentBytes: previous.sentBytes, totalBytes: previous.totalBytes, upload: previous.upload }
        : {}
      : { sentBytes: payload.sentBytes, totalBytes: payload.totalBytes, upload: payload.upload }),
  };
  return { ...state, progress: { ...state.progress, [key]: next } };
}

export function withTrackingStatus(state: DeskState, payload: EventPayload<'tracking.status'>): DeskState {
  const detail = state.details[payload.batchId];
  if (!detail) return state;
  // Main's view of the document as it is now: the renderer shows it, and derives nothing.
  const documents = detail.documents.map((document) =>
    document.id === payload.documentId ? payload.document : document,
  );
  return { ...state, details: { ...state.details, [payload.batchId]: { ...detail, documents } } };
}

/** A request was read at its service: the document shows when it was last checked. */
export function withTrackingChecked(state: DeskState, payload: EventPayload<'tracking.checked'>): DeskState {
  const detail = state.details[payload.batchId];
  if (!detail) return state;
  const documents = detail.documents.map((document) =>
    document.id === payload.documentId ? { ...document, lastCheckedAt: payload.at } : document,
  );
  return { ...state, details: { ...state.details, [payload.batchId]: { ...detail, documents } } };
}

/** Tracking was paused or resumed, from the tray or the window. */
export function withTrackingPaused(state: DeskState, paused: boolean): DeskState {
  return state.info ? { ...state, info: { ...state.info, trackingPaused: paused } } : state;
}

export function withProfiles(state: DeskState, profiles: readonly ProfileView[]): DeskState {
  return { ...state, profiles };
}

/**
 * Another screen: the messages about the one left behind go (an error about one batch never
 * follows the user to the next). Staying on the same screen keeps them.
 */
export function withScreen(state: DeskState, screen: Screen): DeskState {
  if (sameScreen(state.screen, screen)) return { ...state, screen };
  return { ...state, screen, notices: [] };
}

function sameScreen(a: Screen, b: Screen): boolean {
  return a.name === b.name && (a.name !== 'batch' || b.name !== 'batch' || a.batchId === b.batchId);
}

/** The screen a first launch opens on: the app's choice, not the person's (see `arrivedByNavigation`). */
const FIRST_LAUNCH_SCREEN: Screen = { name: 'connections' };

/**
 * True when `screen` is one the person went to (`navigate`), not the one the app opened on: only
 * then does a screen take a focus its way there left on the page's body.
 */
export function arrivedByNavigation(screen: Screen): boolean {
  return screen !== initialState.screen && screen !== FIRST_LAUNCH_SCREEN;
}

/**
 * The first screen once main's profiles and batches are known: a first launch (no connection,
 * no batch) starts on Connections, where the desk can be set up; anything else stays where it is.
 */
export function withFirstScreen(state: DeskState): DeskState {
  const firstLaunch = state.profiles.length === 0 && Object.keys(state.batches).length === 0;
  // Only while the user has not chosen a screen yet (not even the batches, which `navigate` makes anew).
  const untouched = state.screen === initialState.screen;
  // The messages stay: a failure while loading is about this very start, not a screen left behind.
  return firstLaunch && untouched ? { ...state, screen: FIRST_LAUNCH_SCREEN } : state;
}

export function withNotice(state: DeskState, kind: Notice['kind'], text: string): DeskState {
  const id = (state.notices.at(-1)?.id ?? 0) + 1;
  // A handful at most: old notices scroll away rather than pile up.
  return { ...state, notices: [...state.notices.slice(-3), { id, kind, text }] };
}

/** The most files a "not added" notice names; the others are counted ("…and N more"). */
export const NOT_ADDED_LISTED = 5;

/**
 * One error notice for the files that were not added, however many: a single file with its
 * reason, else the count, the first few files with theirs and how many more (a folder of 3,000
 * unreadable files is one notice, not 3,000 that push each other away).
 */
export function withNotAddedNotice(
  state: DeskState,
  rejected: readonly { readonly path: string; readonly message: string }[],
): DeskState {
  const { t } = state.translator;
  const words = (file: { path: string; message: string }) => ({
    name: file.path.split(/[/\\]/).pop() ?? file.path,
    reason: file.message,
  });
  const [only] = rejected;
  if (only === undefined) return state;
  if (rejected.length === 1) return withNotice(state, 'error', t('batches.notAdded', words(only)));
  const listed = rejected.slice(0, NOT_ADDED_LISTED);
  const files = listed.map((file) => t('batches.notAddedFile', words(file))).join(' ');
  return withNotice(
    state,
    'error',
    t('batches.notAddedSeveral', { count: rejected.length, files, more: rejected.length - listed.length }),
  );
}

/**
 * What a folder's pick left out, said once and calmly (an info notice that fades): its subfolders
 * (not searched) and its files that are not PDFs. Nothing left out, nothing said.
 */
export function withFolderSkippedNotice(
  state: DeskState,
  skipped: { readonly subfolders: number; readonly otherFiles: number },
): DeskState {
  const { subfolders, otherFiles } = skipped;
  if (subfolders + otherFiles === 0) return state;
  const both = subfolders > 0 && otherFiles > 0 ? 'yes' : 'no';
  return withNotice(
    state,
    'info',
    state.translator.t('batches.folderSkipped', {
      subfolders,
      otherFiles,
      both,
      total: subfolders + otherFiles,
    }),
  );
}

export function withoutNotice(state: DeskState, id: number): DeskState {
  return { ...state, notices: state.notices.filter((notice) => notice.id !== id) };
}
