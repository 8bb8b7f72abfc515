/**
 * How a file the app did not make is opened and told apart, whoever reads it: the person's files
 * (user-files.ts) and the small files of the app's own data folder (main/store/own-file.ts).
 */
import { constants, type Stats } from 'node:fs';

/**
 * Read-only, no waiting for a FIFO's writer, no terminal taken over, and no symbolic link as the
 * last part of the path: a link swapped in is refused (ELOOP). Windows has none of these flags,
 * nor FIFOs; there they are 0.
 */
export const SAFE_READ_FLAGS =
  constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** Errors of `open` that mean "this is not a file one can open" (a socket: ENXIO on Linux, EOPNOTSUPP on macOS). */
export const NOT_OPENABLE: ReadonlySet<string> = new Set(['ENXIO', 'EOPNOTSUPP', 'ENODEV']);

/** Our code for what is not a regular file, by its kind. */
export function kindCode(
  info: Pick<Stats, 'isDirectory' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>,
): string {
  if (info.isDirectory()) return 'EISDIR';
  if (info.isFIFO()) return 'FIFO';
  if (info.isSocket()) return 'SOCKET';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'DEVICE';
  return 'EINVAL';
}
