/**
 * Manifest import (README "Manifest format"): reads a CSV exported by Excel or written
 * by hand, one row per participant, and turns it into documents with their recipients and
 * options — or into a list of every problem, each with its row and column as the spreadsheet
 * shows them, all at once.
 *
 * The folder's public face: `parseManifest` (a manifest's text), `checkManifest` (a manifest
 * file and its PDFs) and `previewManifest` (what the import screen shows of it). The steps live
 * in files of their own: caps, decode, scan, records, header, rows, grouping, analysis,
 * pdf-checks, the problems' words in messages and their places in sheet-rows.
 */
import { dirname, resolve } from 'node:path';
import type { ManifestPreview } from '../../shared/ipc/views';
import type { Translator } from '../../shared/i18n/translator';
import { speaking, words } from '../base/words';
import { userFiles, unreadableReason, type UserFiles } from '../files/user-files';
import { analyse } from './analysis';
import { isManifestFileName, MAX_MANIFEST_BYTES } from './caps';
import { validDocuments, type ManifestDocument } from './grouping';
import { formatIssue, issueFacts, listIssues, type ListedIssues, type ManifestIssue } from './issues';
import { problemMessage } from './messages';
import { documentsWithPdfs } from './pdf-checks';

export {
  isManifestFileName,
  MAX_FIELD_CHARS,
  MAX_LINE_CHARS,
  MAX_LINE_VALUES,
  MAX_LISTED_ISSUES,
  MAX_MANIFEST_BYTES,
  MAX_MANIFEST_COLUMNS,
  MAX_MANIFEST_DOCUMENTS,
  MAX_MANIFEST_ROWS,
} from './caps';
export type { ManifestDocument } from './grouping';
export { formatIssue, issueFacts, type ManifestIssue } from './issues';

/** A manifest checked: its documents without problems, and its problems. */
export interface ManifestCheck extends ListedIssues {
  readonly documents: ManifestDocument[];
}

/** Documents a manifest's preview shows; the others are counted. */
export const PREVIEW_DOCUMENTS = 200;

/**
 * Parses a manifest without touching the disk: `content` is the file's bytes (checked to be
 * UTF-8) or its text, `manifestDir` the folder its relative paths start from. Returns every
 * problem, each with its row and column, sorted by row; a valid manifest gives `issues: []`.
 * `documents` lists only the documents none of whose rows has a problem: import only when
 * `issues` is empty. A large manifest is parsed in slices, giving the event loop turns.
 */
export function parseManifest(
  content: Buffer | string,
  manifestDir: string,
  t: Translator['t'] = words(),
): Promise<ManifestCheck> {
  return speaking(t, async () => {
    const analysis = await analyse(content, manifestDir);
    return {
      documents: validDocuments(analysis.groups, manifestDir),
      ...listIssues(analysis.issues, analysis.columnOrder),
    };
  });
}

/**
 * Reads the manifest at `manifestPath`, parses it like `parseManifest`, then checks every PDF it
 * references with the service's upload rules — also for documents whose rows have other problems,
 * so that everything is reported at once. A PDF problem is reported on the first row of its
 * document, column "document". Each valid document carries its PDF's SHA-256 and size. The
 * manifest and its PDFs are read as the person's files (main/files/user-files.ts): regular
 * files only, the PDFs inside the manifest's folder, bounded in time.
 */
export function checkManifest(
  manifestPath: string,
  t: Translator['t'] = words(),
  files: UserFiles = userFiles,
): Promise<ManifestCheck> {
  return speaking(t, () => checkManifestNow(manifestPath, files));
}

/**
 * What the import screen shows of the manifest at `manifestPath`, checked like `checkManifest`:
 * its first {@link PREVIEW_DOCUMENTS} documents, how many there are and whom they go to, and its
 * problems, each also as the sentence a person reads (in `t`'s language).
 */
export async function previewManifest(
  manifestPath: string,
  t: Translator['t'] = words(),
): Promise<ManifestPreview> {
  const check = await checkManifest(manifestPath, t);
  return {
    path: manifestPath,
    // The first documents only: a page of 10,000 rows would freeze the window, and the
    // import reads the file again in main anyway.
    documentCount: check.documents.length,
    recipientCount: check.documents.reduce((sum, document) => sum + document.recipients.length, 0),
    documents: check.documents.slice(0, PREVIEW_DOCUMENTS).map((document) => ({
      externalReference: document.externalReference,
      documentColumn: document.documentColumn,
      storedFilename: document.storedFilename,
      recipients: document.recipients,
      rows: [...document.rows],
    })),
    issues: check.issues.map((issue) => ({ ...issueFacts(issue), text: formatIssue(issue, t) })),
    problemCount: check.problemCount,
  };
}

/** The manifest's bytes: a regular file of at most {@link MAX_MANIFEST_BYTES}, read within the deadline. */
async function readManifest(manifestPath: string, files: UserFiles): Promise<Buffer | ManifestIssue> {
  try {
    return await files.readWhole(manifestPath, { maxBytes: MAX_MANIFEST_BYTES });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message =
      code === 'TOO_LARGE'
        ? problemMessage('tooLarge')
        : problemMessage(
            'unreadable',
            unreadableReason(typeof code === 'string' ? code : undefined, words()),
          );
    return { row: 0, column: undefined, message };
  }
}

async function checkManifestNow(manifestPath: string, files: UserFiles): Promise<ManifestCheck> {
  if (!isManifestFileName(manifestPath))
    return {
      documents: [],
      issues: [{ row: 0, column: undefined, message: problemMessage('notAManifest') }],
      problemCount: 1,
    };
  const absolutePath = resolve(manifestPath);
  const content = await readManifest(absolutePath, files);
  if (!Buffer.isBuffer(content)) return { documents: [], issues: [content], problemCount: 1 };

  // The PDFs sit next to the manifest itself, also when it was named through a link.
  const folder = dirname(await files.resolved(absolutePath).catch(() => absolutePath));
  const analysis = await analyse(content, folder);
  const documents = await documentsWithPdfs(analysis, folder, files);
  return { documents, ...listIssues(analysis.issues, analysis.columnOrder) };
}
