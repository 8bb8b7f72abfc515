/** The problems a manifest check finds: each with its line and column, kept up to a cap, then listed in order. */
import type { Translator } from '../../shared/i18n/translator';
import { words } from '../base/words';
import { MAX_KEPT_ISSUES, MAX_LISTED_ISSUES } from './caps';
import { problemMessage } from './messages';

/**
 * One problem in a manifest. `row` is the line where the record starts, as a text editor or
 * Excel shows it (the header is line 1); 0 means the problem concerns the whole file.
 */
export interface ManifestIssue {
  readonly row: number;
  readonly column: string | undefined;
  readonly message: string;
}

/** The problems as listed: the first ones, and how many there are in all. */
export interface ListedIssues {
  /**
   * The problems, sorted by line: at most {@link MAX_LISTED_ISSUES}, then one more (line 0) saying
   * how many are not listed.
   */
  readonly issues: ManifestIssue[];
  /** Every problem found, listed or not. */
  readonly problemCount: number;
}

/**
 * Renders an issue as the user sees it, e.g.
 * `line 4, column "email": must be a valid e-mail address (got "anne@")`.
 */
export function formatIssue(issue: ManifestIssue, t: Translator['t'] = words()): string {
  if (issue.row === 0) return issue.message;
  const values = { row: String(issue.row), message: issue.message };
  return issue.column === undefined
    ? t('manifest.issueAtLine', values)
    : t('manifest.issueAtColumn', { ...values, column: issue.column });
}

/** The problems found: kept up to a cap, in the order found (mostly line order), and counted beyond it. */
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

/** Line order, and within a line the order of the columns in the header. */
function sortIssues(
  issues: readonly ManifestIssue[],
  columnOrder: ReadonlyMap<string, number>,
): ManifestIssue[] {
  const position = (issue: ManifestIssue): number =>
    issue.column === undefined ? -1 : (columnOrder.get(issue.column) ?? Number.MAX_SAFE_INTEGER);
  return [...issues].sort((a, b) => a.row - b.row || position(a) - position(b));
}

/** The first problems in line order, then how many more there are. */
export function listIssues(issues: IssueList, columnOrder: ReadonlyMap<string, number>): ListedIssues {
  const listed = sortIssues(issues.kept, columnOrder).slice(0, MAX_LISTED_ISSUES);
  if (issues.count > listed.length) {
    listed.push({
      row: 0,
      column: undefined,
      message: problemMessage('moreProblems', issues.count - listed.length),
    });
  }
  return { issues: listed, problemCount: issues.count };
}
