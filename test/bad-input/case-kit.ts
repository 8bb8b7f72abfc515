/**
 * The format of a bad-input case, and the builders that make most cases one line of the table
 * (test/bad-input/cases.ts). A case is data: the files of its folder, and the runs through the
 * entry points with what each must answer, word for word. `{dir}` in any string of a case
 * (a path, an argument, an expected message) stands for the case's fresh temporary folder.
 */
import type { FileSpec } from './case-files';

/** Stands for the case's temporary folder in paths, arguments and expected messages. */
export const DIR = '{dir}';

/** A refusal as the app's entry point (`dispatchInvoke`) gives it to the renderer. */
export interface AppError {
  readonly code: string;
  readonly message: string;
}

/** The command line: exit code, and every line it printed on each stream. */
export interface CliOutcome {
  readonly exitCode: number;
  readonly stdout: readonly string[];
  readonly stderr: readonly string[];
}

/**
 * The manifest, as the app's import screen takes it: `manifest.preview` (the check, its issues
 * as shown), then `manifest.import` into a batch, which must refuse and change nothing.
 */
export interface ManifestOutcome {
  readonly preview: { readonly issues: readonly string[] } | { readonly error: AppError };
  readonly import: { readonly error: AppError };
  readonly batchUnchanged: true;
}

/** PDFs added by hand (`documents.addPaths`): each refused with its reason, none added. */
export interface DocumentsOutcome {
  readonly added: 0;
  readonly rejected: readonly { readonly path: string; readonly code: string; readonly message: string }[];
  readonly batchUnchanged: true;
}

/** A connection saved in the app (`profiles.save`): refused, and the saved connections unchanged. */
export interface ProfilesOutcome {
  readonly error: AppError;
  readonly profilesUnchanged: true;
}

export interface ProfileInputData {
  readonly name: string;
  readonly baseUrl: string;
  readonly clientId: string;
  readonly secret?: string;
}

/** One run of a case through one entry point, with what it must answer. */
export type CaseRun =
  | { readonly entry: 'cli'; readonly argv: readonly string[]; readonly expect: CliOutcome }
  | { readonly entry: 'app.manifest'; readonly path: string; readonly expect: ManifestOutcome }
  | {
      readonly entry: 'app.documents';
      readonly paths: readonly string[];
      /** The folder the paths were listed from (a folder added in the app), if any. */
      readonly folder?: string;
      readonly expect: DocumentsOutcome;
    }
  | { readonly entry: 'app.profiles'; readonly input: ProfileInputData; readonly expect: ProfilesOutcome };

export interface BadInputCase {
  /** Short and unique: names the case in the figures and on the runner's command line. */
  readonly id: string;
  /** One line: the bad input, as a person would describe it. */
  readonly description: string;
  /** Made in order in the case's fresh folder before anything is measured. */
  readonly files: readonly FileSpec[];
  readonly runs: readonly CaseRun[];
}

/** The name of a run's entry point in the figures: `cli validate`, `cli send`, `app manifest`… */
export function entryName(run: CaseRun): string {
  return run.entry === 'cli' ? `cli ${run.argv[0] ?? ''}`.trim() : run.entry.replace('.', ' ');
}

/** `value` with `{dir}` replaced by `folder` in every string it holds. */
export function inFolder<T>(value: T, folder: string): T {
  if (typeof value === 'string') return value.split(DIR).join(folder) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => inFolder(item, folder)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, inFolder(item as unknown, folder)]),
    ) as T;
  return value;
}

// ---------------------------------------------------------------------------------------------
// Builders: the expected summary lines are written here once, word for word.

/** The required columns, and a row that is right in every way (its PDF is `a.pdf`). */
export const HEADER = 'document,external_reference,participant_type,role,name,email';
export const GOOD_ROW = 'a.pdf,REF-1,signer,Employee,Ann Smith,ann@example.com';
export const GOOD_PDF: FileSpec = { path: 'a.pdf', pdf: 'Contract A' };
export const MANIFEST = 'manifest.csv';

/** A good manifest and its PDF in a folder of their own, made next to every case's files to warm each entry point up. */
export const WARM_UP_MANIFEST = 'warm-up/manifest.csv';
export const WARM_UP_FILES: readonly FileSpec[] = [
  { path: WARM_UP_MANIFEST, text: `${HEADER}\nw.pdf,WARM-1,signer,Employee,Ann Smith,ann@example.com\n` },
  { path: 'warm-up/w.pdf', pdf: 'Warm-up' },
];

/** `validate {dir}/<manifest>` listing `issues` on stderr, the verdict on stdout, exit 2. */
export function validateRun(issues: readonly string[], manifest = MANIFEST): CaseRun {
  return {
    entry: 'cli',
    argv: ['validate', `${DIR}/${manifest}`],
    expect: {
      exitCode: 2,
      stdout: [
        issues.length === 1
          ? 'Invalid: 1 problem. Fix it and run validate again; nothing was sent.'
          : `Invalid: ${issues.length} problems. Fix them and run validate again; nothing was sent.`,
      ],
      stderr: issues,
    },
  };
}

/** The app's refusal to import a manifest with `count` problems. */
export function invalidImport(count: number): AppError {
  return {
    code: 'manifest_invalid',
    message:
      count === 1
        ? 'The manifest has 1 problem; nothing was imported. Fix it and import again.'
        : `The manifest has ${count.toLocaleString('en')} problems; nothing was imported. Fix them and import again.`,
  };
}

/** The app's check of `{dir}/<manifest>` shows `issues`; its import is refused, nothing imported. */
export function appManifestRun(issues: readonly string[], manifest = MANIFEST): CaseRun {
  return {
    entry: 'app.manifest',
    path: `${DIR}/${manifest}`,
    expect: { preview: { issues }, import: { error: invalidImport(issues.length) }, batchUnchanged: true },
  };
}

/**
 * A bad manifest, through `validate` and the app's import. `input` is the manifest's text
 * (written as manifest.csv next to a good a.pdf) or the folder's files in full, the manifest
 * being `manifest` (manifest.csv unless given, e.g. `batch/manifest.csv` to have a folder
 * outside the manifest's), whatever kind of file that is.
 */
export function manifestCase(
  id: string,
  description: string,
  input: string | readonly FileSpec[],
  issues: readonly string[],
  manifest = MANIFEST,
): BadInputCase {
  const files = typeof input === 'string' ? [{ path: manifest, text: input }, GOOD_PDF] : input;
  return { id, description, files, runs: [validateRun(issues, manifest), appManifestRun(issues, manifest)] };
}

/** A manifest of the required columns whose second line is `row` (its PDF is the good a.pdf). */
export function oneRow(row: string, header = HEADER): string {
  return `${header}\n${row}\n`;
}

/**
 * A bad PDF (`pdf`, made as doc.pdf; absent when undefined): named in a manifest (validate and
 * the app's import answer `inManifest`, the issue on its line), and added by hand in the app
 * (refused with `byHand`).
 */
export function pdfCase(
  id: string,
  description: string,
  pdf: FileSpec | undefined,
  inManifest: string,
  byHand: AppError,
): BadInputCase {
  const issues = [`row 2, column A (document): ${inManifest}`];
  const manifest: FileSpec = {
    path: MANIFEST,
    text: oneRow('doc.pdf,REF-1,signer,Employee,Ann Smith,ann@example.com'),
  };
  return {
    id,
    description,
    files: pdf ? [manifest, pdf] : [manifest],
    runs: [
      validateRun(issues),
      appManifestRun(issues),
      {
        entry: 'app.documents',
        paths: [`${DIR}/doc.pdf`],
        expect: { added: 0, rejected: [{ path: `${DIR}/doc.pdf`, ...byHand }], batchUnchanged: true },
      },
    ],
  };
}

/**
 * A service address refused the same way by `send --base-url` (before anything is read or
 * sent) and by the app's connection form (`profiles.save`).
 */
export function addressCase(id: string, description: string, baseUrl: string, message: string): BadInputCase {
  return {
    id,
    description,
    files: [{ path: MANIFEST, text: oneRow(GOOD_ROW) }, GOOD_PDF],
    runs: [
      {
        entry: 'cli',
        argv: ['send', `${DIR}/${MANIFEST}`, '--base-url', baseUrl, '--data-dir', `${DIR}/cli-data`],
        expect: { exitCode: 2, stdout: [], stderr: [`--base-url: ${message}`] },
      },
      {
        entry: 'app.profiles',
        input: { name: 'Office', baseUrl, clientId: 'client-1', secret: 'not-a-real-secret' },
        expect: { error: { code: 'invalid_profile', message }, profilesUnchanged: true },
      },
    ],
  };
}

/** A command line refused before anything is read: exit 2, `stderr` word for word, nothing on stdout. */
export function commandLineCase(
  id: string,
  description: string,
  argv: readonly string[],
  stderr: readonly string[],
): BadInputCase {
  return {
    id,
    description,
    files: [{ path: MANIFEST, text: oneRow(GOOD_ROW) }, GOOD_PDF],
    runs: [{ entry: 'cli', argv, expect: { exitCode: 2, stdout: [], stderr } }],
  };
}
