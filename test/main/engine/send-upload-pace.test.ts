import { describe, expect, it } from 'vitest';
import { UploadPace } from '../../../main/engine/upload-pace';

const MIB = 1024 * 1024;

describe('upload progress: no further than the line could have carried the bytes', () => {
  it('shows the bytes handed to the connection until an upload of the run has finished', () => {
    const pace = new UploadPace();
    expect(pace.shown(4 * MIB, 1_000)).toBe(4 * MIB);
  });

  it('after a finished upload, shows what its pace carries since the attempt began, never more than handed', () => {
    const pace = new UploadPace();
    // 5 MiB answered after 8 s: 655 bytes a millisecond while sharing the line.
    pace.finished(5 * MIB, 8_000);
    // The system's buffers took 4 MiB at once; the line has carried about 0.6 MiB in a second.
    expect(pace.shown(4 * MIB, 1_000)).toBe(Math.floor((5 * MIB) / 8));
    expect(pace.shown(4 * MIB, 4_000)).toBe(Math.floor((5 * MIB) / 2));
    // Not past what the connection took, however long it has been.
    expect(pace.shown(4 * MIB, 60_000)).toBe(4 * MIB);
    expect(pace.shown(0, 5_000)).toBe(0);
  });

  it('follows the latest uploads when the line changes, and ignores answers it cannot learn from', () => {
    const pace = new UploadPace();
    pace.finished(MIB, 1_000);
    pace.finished(MIB, 3_000);
    // Halfway between 1 MiB/s and 1/3 MiB/s.
    expect(pace.shown(10 * MIB, 3_000)).toBe(Math.floor(((MIB / 1_000 + MIB / 3_000) / 2) * 3_000));
    pace.finished(MIB, 0);
    pace.finished(0, 1_000);
    expect(pace.shown(10 * MIB, 3_000)).toBe(Math.floor(((MIB / 1_000 + MIB / 3_000) / 2) * 3_000));
  });
});
