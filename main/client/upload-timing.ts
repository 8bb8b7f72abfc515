/**
 * When an upload is given up, and how long its bytes may still be on their way. An upload
 * fails on what it does, not on its size: only when its bytes stop moving, or when the service
 * does not answer in a bounded time once the last byte has been handed over.
 *
 * What the app can see is the bytes the connection takes. The system buffers what it takes
 * (socket queues on both sides, a router's): on a slow line megabytes, the whole of a small
 * file at once. So the connection taking nothing says the line stopped, while the service not
 * answering after the last byte was handed says nothing until those buffers could have drained
 * at the pace of the line.
 */

/** The slowest office uplink an upload is made for: 0.5 Mbit/s (10^6 bits), in bytes a second. */
export const SLOWEST_LINE_BYTES_PER_S = 62_500;

/**
 * An attempt fails when the connection takes none of its bytes for this long (ms): the line
 * stopped, or the service stopped reading. Under a minute, so that a line down for a minute
 * costs one new attempt, not two; far above the seconds a slow, shared line takes for a slice.
 */
export const UPLOAD_STALL_MS = 45_000;

/**
 * The most bytes of an upload the system may hold on their way once the connection has taken
 * them (socket send and receive queues, a router's buffer): what may still have to cross the
 * line after the last byte was handed over.
 */
export const BUFFERED_BYTES_BOUND = 16 * 1024 * 1024;

/**
 * The most bytes the system may take of an upload at once once its buffers are full: it frees
 * room in large parts (1.4 to 1.6 MiB measured, with Linux's 4 MiB send buffers), so a slow line
 * may see nothing taken for as long as such a part takes to cross.
 */
export const TAKEN_AT_ONCE_BYTES = 2 * 1024 * 1024;

/**
 * How long an upload's connection may take none of its bytes before its attempt is given up
 * (ms): `floorMs`, or what `takenAtOnce` bytes take at this upload's pace if longer (a slow line
 * between two takes is not a stopped one).
 */
export function uploadStallMs(floorMs: number, takenAtOnce: number, bytesPerS: number | undefined): number {
  return Math.max(floorMs, Math.ceil(lineMs(takenAtOnce, bytesPerS)));
}

/**
 * How long `bytes` take on a line carrying `bytesPerS` for this upload (ms); at the slowest line
 * when the pace is not known, and never faster than measured.
 */
export function lineMs(bytes: number, bytesPerS: number | undefined): number {
  const pace = bytesPerS !== undefined && bytesPerS > 0 ? bytesPerS : SLOWEST_LINE_BYTES_PER_S;
  return (bytes / pace) * 1000;
}

/**
 * How long the service has to answer an upload of `sizeBytes` once its last byte was handed
 * over (ms): the time any call has (`answerMs`), plus the time what the system may still hold of
 * it takes on this line. `bytesPerS`: the pace this upload's share of the line was measured at
 * (undefined: the slowest line).
 */
export function uploadAnswerMs(sizeBytes: number, answerMs: number, bytesPerS: number | undefined): number {
  return answerMs + Math.ceil(lineMs(Math.min(sizeBytes, BUFFERED_BYTES_BOUND), bytesPerS));
}
