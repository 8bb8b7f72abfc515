import { clockReading } from './clocks';
import type { Participant } from '../../shared/service/wire';
import { addPdfDocuments } from '../../main/engine/batch-preparation';
import type { BatchState } from '../../main/domain/batch-state';
import { openDesk, type Desk, type DeskOptions } from '../../main/app/desk-core';
import { Secret } from '../../main/base/secret';
import type { Simulator } from '../../simulator/simulator';
import { DEMO_CLIENT } from '../../simulator/simulator';
import { writePdf, type TempFolder } from './pdf-files';

/** How far a test desk's clock runs ahead of this computer's once it is open (see openTestDesk). */
export const TEST_DESK_CLOCK_AHEAD_MS = 6_000;

/**
 * Opens a desk on `dataDir` against the simulator, with quick retries and waits for tests. Its
 * clock is this computer's, moved 6 s ahead once the desk is open: as if the app had started a
 * while ago, so its first reads are not held back for another process that might have just
 * read (the read-spacing tests cover that hold). A `now` override is used as given.
 */
export async function openTestDesk(
  sim: Simulator,
  dataDir: string,
  overrides: Partial<DeskOptions> = {},
): Promise<Desk> {
  let startedAgoMs = 0;
  const opening = await openDesk({
    clock: clockReading(() => Date.now() + startedAgoMs),
    dataDir,
    connection: {
      baseUrl: sim.baseUrl,
      clientId: DEMO_CLIENT.clientId,
      clientSecret: new Secret(DEMO_CLIENT.clientSecret),
    },
    retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 4, maxRetryAfterMs: 5_000 },
    engineWaitMs: { first: 50, longest: 400 },
    ...overrides,
  });
  if (!opening.ok) throw new Error(opening.error);
  startedAgoMs = TEST_DESK_CLOCK_AHEAD_MS;
  return opening.value;
}

export function signer(index: number): Participant {
  return {
    participant_type: 'signer',
    role: 'Employee',
    name: `Signer ${index}`,
    email: `signer${index}@example.com`,
    signing_order: 1,
  };
}

export function observer(index: number): Participant {
  return {
    participant_type: 'observer',
    role: 'HR',
    name: `Observer ${index}`,
    email: `observer${index}@example.com`,
  };
}

/**
 * Creates a batch of `count` real PDFs, each with one signer (sent at creation) and one extra
 * observer (added afterwards), references REF-1…REF-n.
 */
export async function makeBatch(
  desk: Desk,
  files: TempFolder,
  count: number,
  name = 'Test batch',
): Promise<BatchState> {
  const paths = [];
  for (let index = 1; index <= count; index += 1)
    paths.push(await writePdf(files, `${name} contract ${index}.pdf`, `Contract ${index}`));
  return batchOfPdfs(desk, paths, name, 'REF');
}

/**
 * Creates a batch of these PDFs, each with one signer (sent at creation) and one extra observer
 * (added afterwards), references `<prefix>-1`…`<prefix>-n` in the order given.
 */
export async function batchOfPdfs(
  desk: Desk,
  paths: readonly string[],
  name: string,
  prefix: string,
): Promise<BatchState> {
  const batch = await desk.store.create(name, {
    defaultRecipients: [],
    locale: 'fr-FR',
    transactionType: 'employment_contract',
  });
  const { added } = await addPdfDocuments(desk.store, desk.blobs, batch.id, paths);
  for (const [index, draft] of added.entries()) {
    await desk.store.record(batch.id, [
      {
        type: 'document_edited',
        document: {
          ...draft,
          externalReference: `${prefix}-${index + 1}`,
          recipients: [signer(index + 1)],
          extraParticipants: [observer(index + 1)],
        },
      },
    ]);
  }
  return desk.store.get(batch.id) as BatchState;
}
