/**
 * A report's file name, from a batch name: no folders, no characters Windows refuses, a .csv
 * extension. The name comes from the person (the batch's name), so it never chooses the folder:
 * Electron proposes it in a save dialog, the browser host saves under it in the Downloads folder.
 */
export function safeReportName(defaultName: string): string {
  const cleaned = defaultName
    .replace(/[\\/:*?"<>|\p{Cc}]/gu, '_')
    .replace(/^[.\s]+|[.\s]+$/g, '')
    .slice(0, 150);
  const name = cleaned === '' ? 'report' : cleaned;
  return /\.csv$/i.test(name) ? name : `${name}.csv`;
}
