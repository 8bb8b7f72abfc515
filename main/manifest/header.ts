/**
 * The header line: which known column sits where, the columns with no name, and its problems (a
 * column missing, twice, or unknown, with the known name it is likely a typo of).
 */
import { KNOWN_COLUMNS, REQUIRED_COLUMNS } from './columns';
import type { IssueList } from './issues';
import { problemMessage, shortened } from './messages';

export interface Header {
  /** Its row in the spreadsheet: 1, unless empty rows come first. */
  readonly row: number;
  /** Known column name → position of its first occurrence. */
  readonly positions: ReadonlyMap<string, number>;
  readonly width: number;
  /** Columns with no name: their position in the header, and where a row holds their value. */
  readonly unnamed: readonly { readonly position: number; readonly at: number }[];
  /** The header's cells as written. */
  readonly cells: readonly string[];
}

function squash(name: string): string {
  return name.toLowerCase().replace(/[^a-z]/g, '');
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

function suggestColumn(name: string): string | undefined {
  const squashed = squash(name);
  let best: { column: string; distance: number } | undefined;
  for (const column of KNOWN_COLUMNS) {
    const distance = editDistance(squashed, squash(column));
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { column, distance };
  }
  return best?.column;
}

/** A header cell's column name as written (without a BOM or surrounding spaces). */
function writtenName(cell: string): string {
  return cell.replace(/\uFEFF/g, '').trim();
}

/** The header positions whose values a row needs: the known columns, and unnamed ones (a value there is a problem). */
export function usedPositions(headerCells: readonly string[]): number[] {
  return headerCells.flatMap((cell, index) => {
    const name = writtenName(cell).toLowerCase();
    return name === '' || KNOWN_COLUMNS.includes(name) ? [index] : [];
  });
}

/** The header with its positions counted among the used ones only, as the data rows hold them. */
export function projected(header: Header): Header {
  const used = usedPositions(header.cells);
  const at = new Map(used.map((position, index) => [position, index]));
  return {
    ...header,
    positions: new Map([...header.positions].map(([name, position]) => [name, at.get(position) ?? -1])),
    unnamed: header.unnamed.map(({ position }) => ({ position, at: at.get(position) ?? -1 })),
  };
}

function unknownColumnMessage(suggestion: string | undefined): string {
  return suggestion === undefined
    ? problemMessage('unknownColumn')
    : problemMessage('unknownColumnSuggestion', suggestion);
}

export function readHeader(row: number, cells: readonly string[], issues: IssueList): Header | undefined {
  const positions = new Map<string, number>();
  const unnamed: { position: number; at: number }[] = [];
  /** Each unknown name as written, with its first position. */
  const unknown = new Map<string, number>();
  cells.forEach((cell, index) => {
    const written = writtenName(cell);
    const name = written.toLowerCase();
    if (name === '') {
      unnamed.push({ position: index, at: index });
    } else if (!KNOWN_COLUMNS.includes(name)) {
      if (!unknown.has(written)) unknown.set(written, index);
    } else {
      const first = positions.get(name);
      if (first === undefined) positions.set(name, index);
      else
        issues.push({
          row,
          column: name,
          columnIndex: index,
          message: problemMessage('duplicateColumn', first),
        });
    }
  });
  if (positions.size === 0) {
    issues.push({ row, column: undefined, message: problemMessage('noHeader') });
    return undefined;
  }
  // Each unknown name once, however often it repeats.
  for (const [name, index] of unknown) {
    issues.push({
      row,
      column: shortened(name),
      columnIndex: index,
      message: unknownColumnMessage(suggestColumn(name)),
    });
  }
  for (const column of REQUIRED_COLUMNS) {
    if (!positions.has(column)) issues.push({ row, column, message: problemMessage('missingColumn') });
  }
  return { row, positions, width: cells.length, unnamed, cells };
}
