/**
 * The system's preferred locales where Electron cannot say (the browser host, the command
 * line): POSIX environment, most preferred first — LANGUAGE (a list), then LC_ALL,
 * LC_MESSAGES, LANG. "C" and "POSIX" say nothing.
 */
export function posixLocales(env: NodeJS.ProcessEnv = process.env): string[] {
  const found = [...(env.LANGUAGE ?? '').split(':'), env.LC_ALL ?? '', env.LC_MESSAGES ?? '', env.LANG ?? '']
    .map((tag) => tag.split('.')[0]?.split('@')[0]?.replace('_', '-') ?? '')
    .filter((tag) => tag !== '' && tag !== 'C' && tag !== 'POSIX');
  return [...new Set(found)];
}
