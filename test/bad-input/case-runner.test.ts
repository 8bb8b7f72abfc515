/**
 * The bad-input machinery itself: the odd files a case can be made of are what they claim to be,
 * and the runner tells a wrong answer from the right one (so a passing table means something).
 */
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempFolder, type TempFolder } from '../support/pdf-files';
import { ZERO_DEVICE, makeCaseFiles } from './case-files';
import { inFolder, manifestCase, oneRow, GOOD_ROW } from './case-kit';
import { runCase, verdictOf, withChildBundle } from './case-runner';

let folder: TempFolder | undefined;

afterEach(() => {
  folder?.remove();
  folder = undefined;
});

describe('the files of a bad-input case', () => {
  it('makes each kind of file, odd ones included, as described', async () => {
    folder = makeTempFolder('bad-input-files-');
    const made = await makeCaseFiles(folder.path, [
      { path: 'text.csv', text: 'a,b\n' },
      { path: 'bytes.csv', bytes: [0xe9, 0x0a] },
      { path: 'sub/real.pdf', pdf: 'Real' },
      { path: 'folder.pdf', folder: true },
      { path: 'huge.pdf', sparse: 64 * 1024 * 1024, start: '%PDF-1.7\n' },
      { path: 'pipe.pdf', fifo: true },
      { path: 'socket.pdf', socket: true },
      { path: 'link.pdf', symlink: 'sub/real.pdf' },
      { path: 'device.pdf', symlink: ZERO_DEVICE },
    ]);
    const at = (name: string) => join(folder!.path, name);
    try {
      expect(readFileSync(at('text.csv'), 'utf8')).toBe('a,b\n');
      expect([...readFileSync(at('bytes.csv'))]).toEqual([0xe9, 0x0a]);
      expect(readFileSync(at('sub/real.pdf')).subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(lstatSync(at('folder.pdf')).isDirectory()).toBe(true);
      const huge = statSync(at('huge.pdf'));
      expect(huge.size).toBe(64 * 1024 * 1024);
      expect(huge.blocks * 512).toBeLessThan(1024 * 1024);
      expect(readFileSync(at('huge.pdf')).subarray(0, 9).toString('latin1')).toBe('%PDF-1.7\n');
      expect(lstatSync(at('pipe.pdf')).isFIFO()).toBe(true);
      expect(lstatSync(at('socket.pdf')).isSocket()).toBe(true);
      expect(lstatSync(at('link.pdf')).isSymbolicLink()).toBe(true);
      expect(statSync(at('link.pdf')).isFile()).toBe(true);
      expect(statSync(at('device.pdf')).isCharacterDevice()).toBe(true);
    } finally {
      await made.close();
    }
  });

  it('puts the case’s folder wherever {dir} is written', () => {
    expect(inFolder({ argv: ['validate', '{dir}/m.csv'], n: 2, ok: true }, '/tmp/x')).toEqual({
      argv: ['validate', '/tmp/x/m.csv'],
      n: 2,
      ok: true,
    });
  });
});

describe('the bad-input runner', () => {
  it('runs a case in a child and tells the exact answer from a wrong one, with figures', async () => {
    const right = manifestCase(
      'email-right',
      'an e-mail address without its domain',
      oneRow(GOOD_ROW.replace('ann@example.com', 'anne@')),
      ['row 2, column F (email): must be a valid e-mail address (got "anne@")'],
    );
    const wrong = manifestCase(
      'email-wrong',
      'the same, expecting other words',
      oneRow(GOOD_ROW.replace('ann@example.com', 'anne@')),
      ['row 2, column F (email): must be an e-mail address (got "anne@")'],
    );
    await withChildBundle(async (bundle) => {
      const good = await runCase(bundle, right, 0);
      expect(good.failure).toBeUndefined();
      expect(good.answersAsExpected).toBe(true);
      expect(verdictOf(good)).toBe(true);
      expect(good.ms).toBeGreaterThan(0);
      expect(good.idleBytes).toBeGreaterThan(0);

      const bad = await runCase(bundle, wrong, 0);
      expect(bad.answersAsExpected).toBe(false);
      expect(verdictOf(bad)).toBe(false);
      expect(bad.observed).toEqual(good.observed);
    });
  }, 60_000);
});
