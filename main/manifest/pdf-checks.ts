/**
 * Every PDF a manifest names, checked with the service's upload rules (main/files/pdf-check.ts)
 * — also for documents whose rows have other problems, so that everything is reported at once. A
 * PDF problem is reported on the first row of its document, column "document"; a file missing
 * next to one whose name differs only in capitals or accents is named.
 */
import { basename, dirname } from 'node:path';
import { err } from '../../shared/base/result';
import { words } from '../base/words';
import {
  checkPdfFile,
  readProblem,
  type PdfCheckResult,
  type PdfProblem,
  type SameFileChecks,
} from '../files/pdf-check';
import { unreadableReason, type UserFiles } from '../files/user-files';
import type { Analysis } from './analysis';
import { buildDocument, firstRow, type ManifestDocument } from './grouping';
import { problemMessage } from './messages';

const PDF_CHECK_CONCURRENCY = 4;

function pdfIssueMessage(documentColumn: string, problem: PdfProblem): string {
  switch (problem.code) {
    case 'missing_pdf':
      return problemMessage('pdfEmpty', documentColumn);
    case 'pdf_too_large':
      return problemMessage('pdfTooLarge', documentColumn);
    case 'invalid_pdf':
      return problem.looksLike === 'office'
        ? problemMessage('pdfInvalidOffice', documentColumn)
        : problem.looksLike === 'image'
          ? problemMessage('pdfInvalidImage', documentColumn)
          : problemMessage('pdfInvalid', documentColumn);
    case 'unreadable_file':
      return problemMessage('pdfUnreadable', documentColumn, unreadableReason(problem.systemCode, words()));
  }
}

/**
 * A file next to a missing one whose name differs only in capitals or in how its accents are
 * encoded (files copied from a Mac keep accents decomposed), to say so rather than "missing".
 * `listed` keeps each folder's names for the rest of one check.
 */
async function nearName(
  path: string,
  files: UserFiles,
  listed: Map<string, Promise<readonly string[]>>,
): Promise<string | undefined> {
  const folder = dirname(path);
  let names = listed.get(folder);
  if (names === undefined) {
    names = files.list(folder).then(
      (entries) => entries.map((entry) => entry.name),
      () => [],
    );
    listed.set(folder, names);
  }
  const loose = (name: string) => name.normalize('NFC').toLowerCase();
  const wanted = loose(basename(path));
  return (await names).find((name) => loose(name) === wanted);
}

async function checkPdfs(
  paths: readonly string[],
  folder: string,
  files: UserFiles,
): Promise<Map<string, PdfCheckResult>> {
  const results = new Map<string, PdfCheckResult>();
  // One check per file, however many spellings lead to it (`a.pdf`, `./a.pdf`, `link/a.pdf`…),
  // known before opening it; then by device and inode, once open (a hard link, another mount).
  const byFile = new Map<string, Promise<PdfCheckResult>>();
  const sameFiles: SameFileChecks = new Map();
  // The folder is resolved once; each file is opened by its resolved path, not resolved again.
  let within: string;
  try {
    within = await files.resolved(folder);
  } catch (error) {
    const problem = readProblem(error);
    return new Map(paths.map((path) => [path, err(problem)]));
  }
  const check = (file: string) =>
    checkPdfFile(file, {
      open: (source, options) => files.open(source, options),
      within,
      resolved: true,
      sameFiles,
    });
  const queue = [...paths];
  const worker = async (): Promise<void> => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
      let file: string;
      try {
        file = await files.resolved(path);
      } catch (error) {
        // Missing, or its path cannot be followed: said at once, without opening anything.
        results.set(path, err(readProblem(error)));
        continue;
      }
      let result = byFile.get(file);
      if (result === undefined) {
        result = check(file);
        byFile.set(file, result);
      }
      results.set(path, await result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PDF_CHECK_CONCURRENCY, paths.length) }, worker));
  return results;
}

/**
 * Checks the PDFs of every document of `analysis` (its PDFs inside `folder`), adds their problems
 * to its issues, and returns the documents without any problem, each with its PDF's SHA-256 and size.
 */
export async function documentsWithPdfs(
  analysis: Analysis,
  folder: string,
  files: UserFiles,
): Promise<ManifestDocument[]> {
  const paths = [...new Set(analysis.groups.flatMap((group) => (group.path.ok ? [group.path.value] : [])))];
  const results = await checkPdfs(paths, folder, files);
  const { issues } = analysis;
  const documents: ManifestDocument[] = [];
  const listed = new Map<string, Promise<readonly string[]>>();
  for (const group of analysis.groups) {
    if (!group.path.ok) continue;
    const result = results.get(group.path.value);
    if (result === undefined) continue;
    if (!result.ok) {
      const near =
        result.error.systemCode === 'ENOENT' ? await nearName(group.path.value, files, listed) : undefined;
      issues.push({
        row: firstRow(group),
        column: 'document',
        message:
          near === undefined
            ? pdfIssueMessage(group.documentColumn, result.error)
            : problemMessage('pdfNearName', group.documentColumn, near),
      });
    } else if (!group.hasIssue) {
      documents.push({ ...buildDocument(group, group.path.value, folder), pdf: result.value });
    }
  }
  return documents;
}
