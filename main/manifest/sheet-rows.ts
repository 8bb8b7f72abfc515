/**
 * Where a problem is, as the person's spreadsheet shows it: a row is one record of the CSV,
 * however many line breaks its quoted cells hold (a role typed with Alt+Enter is one row in
 * Excel but several lines of text), and a column is a letter (A, B, … Z, AA…).
 */

/** The spreadsheet letter of the column at `index` (0-based): 0 → A, 25 → Z, 26 → AA, 701 → ZZ, 702 → AAA. */
export function columnLetter(index: number): string {
  let letters = '';
  for (let rest = index + 1; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(0x41 + ((rest - 1) % 26)) + letters;
  }
  return letters;
}

/**
 * The spreadsheet row of each line of the text: built from the line where each record starts
 * (blank records included, as a spreadsheet shows a blank line as an empty row), in file order.
 */
export class SheetRows {
  /**
   * `starts`: the line (1-based) where each record starts, ascending; `hiddenRows`: records at
   * the start that a spreadsheet does not show (Excel's `sep=;` hint line); `scannedLines`: the
   * last line the starts cover, when the scan stopped early at a cap.
   */
  constructor(
    private readonly starts: readonly number[],
    private readonly hiddenRows = 0,
    private readonly scannedLines = Number.POSITIVE_INFINITY,
  ) {}

  /**
   * The row of the record that holds `line`. A line past the scan (which stopped at a cap) is
   * counted one row a line from the last line scanned.
   */
  rowOf(line: number): number {
    if (line > this.scannedLines) return this.rowOf(this.scannedLines) + line - this.scannedLines;
    // The last record starting at or before `line`.
    let low = 0;
    let high = this.starts.length - 1;
    if (high < 0 || line < (this.starts[0] ?? 1)) return Math.max(1, line - this.hiddenRows);
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.starts[middle] ?? 0) <= line) low = middle;
      else high = middle - 1;
    }
    return Math.max(1, low + 1 - this.hiddenRows);
  }
}
