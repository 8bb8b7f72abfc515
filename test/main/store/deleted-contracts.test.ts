import { describe, expect, it } from 'vitest';
import { DeletedContracts } from '../../../main/store/deleted-contracts';
import { createSeededRandom } from '../../../simulator/seeded-random';
import { CrashFileSystem } from '../../support/crash-fs';

const contract = (reference: string) => ({
  batchId: 'b-1',
  batchName: 'Monday',
  connection: { baseUrl: 'https://sign.example.com', clientId: 'desk' },
  documentId: `d-${reference}`,
  reference,
  sha256: 'a'.repeat(64),
  fileName: `${reference}.pdf`,
  requestId: `sr_${reference}`,
});

describe('the contracts of deleted batches', () => {
  it('are remembered durably: a power cut right after the batch is deleted keeps them', async () => {
    for (let seed = 1; seed <= 30; seed += 1) {
      const fs = new CrashFileSystem();
      const opened = await DeletedContracts.open('/data/batches', fs, { readOnly: false, now: () => 0 });
      if (!opened.ok) throw new Error('not opened');
      await opened.value.remember([contract('HR-1'), contract('HR-2')]);
      const image = fs.powerCut(createSeededRandom(seed));
      const again = await DeletedContracts.open('/data/batches', new CrashFileSystem({ image }), {
        readOnly: true,
        now: () => 0,
      });
      if (!again.ok) throw new Error(`seed ${seed}: ${again.error.problem}`);
      expect(
        again.value.list().map((kept) => kept.reference),
        `seed ${seed}`,
      ).toEqual(['HR-1', 'HR-2']);
    }
  });

  it('a data folder without any deleted batch has none, and a read-only one writes nothing', async () => {
    const fs = new CrashFileSystem();
    const opened = await DeletedContracts.open('/data/batches', fs, { readOnly: true, now: () => 0 });
    expect(opened.ok && opened.value.list()).toEqual([]);
    await expect(fs.readdir('/data')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
