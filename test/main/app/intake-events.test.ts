import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import { createMemoryCredentialStore } from '../../../main/credentials/credential-store';
import { openDataDir, type DataDir } from '../../../main/app/desk-core';
import type { BatchSummary } from '../../../shared/ipc/views';
import { createTestDeskService } from '../../support/desk-service-harness';
import { makePdfBytes, makeTempFolder, type TempFolder } from '../../support/pdf-files';

/**
 * While a large intake runs, the page hears of it a group at a time (the copies are made
 * durable and recorded 200 files at a time), not once a file: a window that redrew its batch
 * for each of 10,000 files would fall behind the intake it shows.
 */
const FILES = 1_000;
const GROUP_FILES = 200;

let files: TempFolder;
let dataDir: DataDir;
let service: DeskService;
let events: { event: string; payload: unknown }[];

/** `count` distinct one-page PDFs (each its own bytes: the copies are stored by content). */
async function writePdfs(count: number): Promise<string[]> {
  const bytes = Buffer.from(await makePdfBytes('Employment contract'));
  return Array.from({ length: count }, (_, index) => {
    const path = files.file(`contract-${String(index + 1).padStart(4, '0')}.pdf`);
    // A comment after the end: still the same valid PDF, with its own SHA-256.
    writeFileSync(path, Buffer.concat([bytes, Buffer.from(`\n% copy ${index + 1}\n`)]));
    return path;
  });
}

/** The batch updates the page was sent for `batchId` since `from`. */
function batchUpdates(batchId: string, from: number): BatchSummary[] {
  return events
    .slice(from)
    .filter(({ event }) => event === 'batch.changed')
    .map(({ payload }) => (payload as { batch: BatchSummary }).batch)
    .filter((batch) => batch.id === batchId);
}

beforeEach(async () => {
  files = makeTempFolder('intake-events-');
  const opened = await openDataDir(files.file('data'));
  if (!opened.ok) throw new Error(opened.error);
  dataDir = opened.value;
  events = [];
  service = createTestDeskService(dataDir, createMemoryCredentialStore(), {
    emit: (event, payload) => events.push({ event, payload }),
  });
});

afterEach(async () => {
  await service.close();
  await dataDir.close();
  files.remove();
});

describe('a large intake reaches the page a group at a time', () => {
  it(`sends one batch update per ${GROUP_FILES} files while ${FILES.toLocaleString('en')} PDFs are added`, async () => {
    const paths = await writePdfs(FILES);
    const batch = await service.handlers['batches.create']('Contracts');
    const from = events.length;
    const result = await service.handlers['documents.addPaths'](batch.id, paths);
    expect(result).toEqual({ added: FILES, rejected: [] });
    const updates = batchUpdates(batch.id, from);
    expect(updates.map((update) => update.documentCount)).toEqual(
      Array.from({ length: FILES / GROUP_FILES }, (_, index) => (index + 1) * GROUP_FILES),
    );
    // Nothing else is sent once a file either.
    expect(events.length - from).toBe(FILES / GROUP_FILES);
  }, 60_000);

  it(`sends one batch update per ${GROUP_FILES} documents while a manifest of ${FILES.toLocaleString('en')} is imported`, async () => {
    const paths = await writePdfs(FILES);
    const manifest = files.file('manifest.csv');
    writeFileSync(
      manifest,
      [
        'document,external_reference,participant_type,role,name,email',
        ...paths.map(
          (path, index) =>
            `${basename(path)},HR-${index + 1},signer,Employee,Person ${index + 1},p${index + 1}@example.com`,
        ),
      ].join('\n'),
    );
    const batch = await service.handlers['batches.create']('Contracts');
    const from = events.length;
    const result = await service.handlers['manifest.import'](batch.id, manifest);
    expect(result.added).toBe(FILES);
    const updates = batchUpdates(batch.id, from);
    expect(updates.map((update) => update.documentCount)).toEqual(
      Array.from({ length: FILES / GROUP_FILES }, (_, index) => (index + 1) * GROUP_FILES),
    );
    expect(events.length - from).toBe(FILES / GROUP_FILES);
  }, 60_000);
});
