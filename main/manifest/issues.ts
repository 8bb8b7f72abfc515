/**
 * The problems a manifest check finds: each with its row and column as the person's spreadsheet
 * shows them, kept up to a cap, then listed in order.
 */
import type { Translator } from '../../shared/i18n/translator';
import { words } from '../base/words';
import { MAX_KEPT_ISSUES, MAX_LISTED_ISSUES } from './caps';
import { problemMessage } from './messages';
import { columnLetter } from './sheet-rows';

/**
 * One problem in a manifest. `row` is the record's row as a spreadsheet shows it (the header is
 * row 1, and a cell with line breaks is still one row); 0 means the problem concerns the whole
 * file. `column` is the column's name in the header; `columnIndex` its place there (0 is
 * column A), set when the listing knows it.
 */
export interface ManifestIssue {
  readonly row: number;
  readonly column: string | undefined;
  readonly columnIndex?: number;
  readonly message: string;
}

/** A problem as data (the command line's `--json`): its row, its column's letter and name, its message. */
export interface IssueFacts {
  readonly row: number;
  readonly column?: string;
  readonly columnLetter?: string;
  readonly message: string;
}

export function issueFacts(issue: ManifestIssue): IssueFacts {
  return {
    row: issue.row,
    ...(issue.column === undefined ? {} : { column: issue.column }),
    ...(issue.columnIndex === undefined ? {} : { columnLetter: columnLetter(issue.columnIndex) }),
    message: issue.message,
  };
}

/** The problems as listed: the first ones, and how many there are in all. */
export interface ListedIssues {
  /**
   * The problems, sorted by row: at most {@link MAX_LISTED_ISSUES}, then one more (row 0) saying
   * how many are not listed.
   */
  readonly issues: ManifestIssue[];
  /** Every problem found, listed or not. */
  readonly problemCount: number;
}

/**
 * Renders an issue as the user sees it, e.g.
 * `row 4, column F (email): must be a valid e-mail address (got "anne@")`.
 */
export function formatIssue(issue: ManifestIssue, t: Translator['t'] = words()): string {
  if (issue.row === 0) return issue.message;
  const values = { row: String(issue.row), message: issue.message };
  const letter = issue.columnIndex === undefined ? undefined : columnLetter(issue.columnIndex);
  if (letter !== undefined && issue.column !== undefined)
    return t('manifest.issueAtColumn', { ...values, letter, column: issue.column });
  if (letter !== undefined) return t('manifest.issueAtLetter', { ...values, letter });
  // A column missing from the header has a name but no place.
  if (issue.column !== undefined)
    return t('manifest.issueAtNamedColumn', { ...values, column: issue.column });
  return t('manifest.issueAtRow', values);
}

/** The problems found: kept up to a cap, in the order found (mostly row order), and counted beyond it. */
export class IssueList {
  readonly kept: ManifestIssue[] = [];
  count = 0;

  push(...issues: readonly ManifestIssue[]): void {
    for (const issue of issues) {
      this.count += 1;
      if (this.kept.length < MAX_KEPT_ISSUES) this.kept.push(issue);
    }
  }
}

/** The issue with its column's place in the header, when it names a column the header has. */
function placed(issue: ManifestIssue, columnOrder: ReadonlyMap<string, number>): ManifestIssue {
  if (issue.columnIndex !== undefined || issue.column === undefined) return issue;
  const columnIndex = columnOrder.get(issue.column);
  return columnIndex === undefined ? issue : { ...issue, columnIndex };
}

/** Row order, and within a row the order of the columns (the problems of the whole row first). */
function sortIssues(issues: readonly ManifestIssue[]): ManifestIssue[] {
  const position = (issue: ManifestIssue): number =>
    issue.columnIndex ?? (issue.column === undefined ? -1 : Number.MAX_SAFE_INTEGER);
  return [...issues].sort((a, b) => a.row - b.row || position(a) - position(b));
}

/**
 * The first problems in row order, each with its column's place in the header (`columnOrder`:
 * each known column's place), then how many more there are.
 */
export function listIssues(issues: IssueList, columnOrder: ReadonlyMap<string, number>): ListedIssues {
  const listed = sortIssues(issues.kept.map((issue) => placed(issue, columnOrder))).slice(
    0,
    MAX_LISTED_ISSUES,
  );
  if (issues.count > listed.length) {
    listed.push({
      row: 0,
      column: undefined,
      message: problemMessage('moreProblems', issues.count - listed.length),
    });
  }
  return { issues: listed, problemCount: issues.count };
}
