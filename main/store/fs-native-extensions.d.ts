/** The part of fs-native-extensions (Holepunch) the app uses: kernel-held advisory file locks. */
declare module 'fs-native-extensions' {
  /** An exclusive lock on the whole file behind `fd` (OFD fcntl on Linux, flock on macOS, LockFileEx on Windows): true when taken, false when another holds it. */
  export function tryLock(fd: number): boolean;
  export function unlock(fd: number): void;
}
