import fc from 'fast-check';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { expect, it } from 'vitest';
import type { DeskService } from '../../../main/app/desk-service';
import { BatchBanners } from '../../../renderer/src/components/batch-banners';
import { SLOW_CALL_MS } from '../../../main/engine/slow-calls';
import type { EventPayload } from '../../../shared/ipc/contract';
import type { BatchDetail } from '../../../shared/ipc/views';
import { createTestDeskService, sendAsReviewed } from '../../support/desk-service-harness';
import { writePdf } from '../../support/pdf-files';
import { openTwoServices, saveBothConnections, type TwoServices } from '../../support/two-services';
import { countDocuments } from '../../../renderer/src/state/document-status';

/**
 * The banners above a batch say what its service does, one at a time (README "Using the app",
 * Send batch): generated sequences of what the service does (stops answering, answers slowly,
 * refuses with 503, closes every connection, answers again) and of what the person does (Pause, Resume sending), on one
 * virtual clock for the service, the desk and the test. After each step the batch's banners are
 * drawn from the batch as the page gets it, and checked against what the service did.
 */

type Step =
  | { readonly kind: 'frozen' | 'slow' | 'refusing' | 'dropping' | 'back'; readonly seconds: number }
  | { readonly kind: 'pause' | 'resume'; readonly seconds: number };

/** The service's behaviour, on its API paths (the token is still given). */
const BEHAVIOURS = {
  frozen: { silentRate: 1, pathPattern: '^/api/v1/' },
  slow: { latencyMs: 4_000, pathPattern: '^/api/v1/' },
  refusing: { rate503: 1, retryAfterSeconds: 2, pathPattern: '^/api/v1/' },
  // The connection is closed before any answer: to the desk, the service cannot be reached.
  dropping: { dropBeforeRate: 1, pathPattern: '^/api/v1/' },
  back: {},
} as const;

/** A call's deadline (30 s), and the look after it: calls of a silent service may be late this long after. */
const LATE_CALLS_MS = 35_000;

const SLOW = 'The service is slow to answer';
/** The wait's banner: why, when the next try is, and Try now. */
const WAITING = 'Try now';
const PAUSING = 'Pausing: waiting for the answer';

function banners(detail: BatchDetail): { slow: boolean; waiting: boolean; pausing: boolean; text: string } {
  const text = renderToStaticMarkup(
    createElement(BatchBanners, { detail, counts: countDocuments(detail.documents) }),
  )
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ');
  return {
    slow: text.includes(SLOW),
    waiting: text.includes(WAITING),
    pausing: text.includes(PAUSING),
    text,
  };
}

const step: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom('frozen', 'slow', 'refusing', 'dropping', 'back', 'pause', 'resume'),
  // Short steps see what changes at once (a pause draining its calls for up to 10 s), long ones
  // the calls' deadlines (30 s) and the waits for the service.
  seconds: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 5, max: 45 })),
});

interface World {
  readonly world: TwoServices;
  readonly service: DeskService;
  readonly batchId: string;
  /** Since when (monotonic ms) the batch's sending has run without a wait, as the page was told. */
  runningSince(): number;
}

async function openWorld(): Promise<World> {
  const world = await openTwoServices('service-banners-', [61, 62]);
  let runningSince = Number.POSITIVE_INFINITY;
  const service = createTestDeskService(world.dataDir, world.credentials, {
    clock: world.clock,
    emit: (event, payload) => {
      if (event !== 'sending.state') return;
      const { state } = (payload as EventPayload<'sending.state'>).engine;
      if (state !== 'running') runningSince = Number.POSITIVE_INFINITY;
      else if (runningSince === Number.POSITIVE_INFINITY) runningSince = world.clock.monotonic();
    },
  });
  const { handlers } = service;
  await saveBothConnections(handlers, world);
  await handlers['profiles.activate']('Sandbox');
  const batch = await handlers['batches.create']('Banners');
  const paths = [];
  for (let index = 1; index <= 12; index += 1)
    paths.push(await writePdf(world.files, `contract-${index}.pdf`, `Contract ${index}`));
  await handlers['documents.addPaths'](batch.id, paths);
  for (const [index, document] of (await handlers['batches.get'](batch.id)).documents.entries())
    await handlers['documents.update'](batch.id, document.id, {
      externalReference: `BANNER-${index + 1}`,
      recipients: [{ participant_type: 'signer', role: 'Employee', name: 'Ann', email: 'ann@example.com' }],
    });
  return { world, service, batchId: batch.id, runningSince: () => runningSince };
}

it('one banner at a time, and it says what the service really does, whatever it does in turn', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('frozen', 'slow', 'refusing', 'dropping', 'back'),
      fc.array(step, { minLength: 2, maxLength: 7 }),
      async (first, steps) => {
        const { world, service, batchId, runningSince } = await openWorld();
        const { clock, sandbox } = world;
        const { handlers } = service;
        try {
          let behaviour: keyof typeof BEHAVIOURS = first;
          sandbox.faults.set(BEHAVIOURS[first]);
          /** When the service last stopped being silent or slow (now while it is). */
          let unansweringUntil = first === 'frozen' || first === 'slow' ? Infinity : -Infinity;
          let pausedByPerson = false;
          await sendAsReviewed(handlers, batchId);
          for (const next of [{ kind: first, seconds: 5 } as Step, ...steps]) {
            const startedAt = clock.monotonic();
            if (next.kind === 'pause') {
              pausedByPerson = true;
              await handlers['sending.pause'](batchId);
            } else if (next.kind === 'resume') {
              pausedByPerson = false;
              await handlers['sending.resume'](batchId);
            } else {
              if (behaviour === 'frozen' || behaviour === 'slow') unansweringUntil = startedAt;
              behaviour = next.kind;
              if (behaviour === 'frozen' || behaviour === 'slow') unansweringUntil = Infinity;
              sandbox.faults.reset();
              sandbox.faults.set(BEHAVIOURS[behaviour]);
            }
            await clock.advanceWhileCallsHang(next.seconds * 1_000);
            const detail = await handlers['batches.get'](batchId);
            const shown = banners(detail);
            const where = `after ${JSON.stringify(next)} (the service ${behaviour}; ${JSON.stringify(detail.engine)}): ${shown.text}`;

            // One word for the service at a time.
            expect(
              [shown.slow, shown.waiting, shown.pausing].filter(Boolean).length,
              where,
            ).toBeLessThanOrEqual(1);
            // Slow only when calls were left unanswered: the service is silent or slow, or was
            // so lately enough for one of its calls to be still late.
            if (shown.slow)
              expect(clock.monotonic() - unansweringUntil, where).toBeLessThanOrEqual(LATE_CALLS_MS);
            // A wait says when the next try is: never a time already gone by.
            if (shown.waiting && detail.engine.resumesAt !== undefined)
              expect(detail.engine.resumesAt, where).toBeGreaterThan(clock.now() - 1_000);
            // A pause asked for is never "still trying", nor offers Pause sending again.
            if (pausedByPerson) expect(shown.slow, where).toBe(false);
            // A service silent for long enough while sending tries it is never left unsaid: its
            // calls of the last seconds are late (a slow service's answers may still come in
            // its first 4 s), once sending has tried it for a normal answer's time and a look.
            if (
              behaviour === 'frozen' &&
              next.kind === 'frozen' &&
              next.seconds >= 8 &&
              !pausedByPerson &&
              detail.engine.state === 'running' &&
              clock.monotonic() - runningSince() >= SLOW_CALL_MS + 500 &&
              detail.documents.some((document) => document.class === 'sending')
            )
              expect(shown.slow, where).toBe(true);
          }
        } finally {
          // The calls the service holds are given up at their deadlines while the desk closes.
          sandbox.faults.reset();
          const closing = service.close();
          await clock.advanceWhileCallsHang(60_000);
          await clock.complete(closing);
          await world.close();
        }
      },
    ),
    { numRuns: 15 },
  );
}, 240_000);

it('a wait for the service that is over says so: the next try that meets a silent service is said slow, not "next try at" a time gone by', async () => {
  const { world, service, batchId } = await openWorld();
  const { clock, sandbox } = world;
  const { handlers } = service;
  try {
    // The service refuses (503): sending waits for it, and says until when.
    sandbox.faults.set(BEHAVIOURS.refusing);
    await sendAsReviewed(handlers, batchId);
    const waiting = await clock.when(
      async () => {
        const { engine } = await handlers['batches.get'](batchId);
        return engine.state === 'waiting' ? engine : undefined;
      },
      { what: 'sending waits for the service' },
    );
    const wait = banners(await handlers['batches.get'](batchId));
    expect(wait.waiting).toBe(true);
    // Said once, with what happens next: the app tries again by itself (or at Try now); the
    // person has nothing to try later.
    expect(wait.text.match(/Nothing is lost/g), wait.text).toHaveLength(1);
    expect(wait.text).not.toContain('try again later');
    expect(wait.text).toContain('The signing service is temporarily unavailable. Sending resumes by itself.');
    // Meanwhile it stops answering altogether; the wait ends and sending tries again.
    sandbox.faults.reset();
    sandbox.faults.set(BEHAVIOURS.frozen);
    await clock.advanceWhileCallsHang(waiting.resumesAt! - clock.now() + 3_000);
    const detail = await handlers['batches.get'](batchId);
    const shown = banners(detail);
    expect(detail.engine.state, shown.text).toBe('running');
    expect(shown.slow, shown.text).toBe(true);
    expect(shown.text).not.toContain('Next try at');
  } finally {
    sandbox.faults.reset();
    const closing = service.close();
    await clock.advanceWhileCallsHang(60_000);
    await clock.complete(closing);
    await world.close();
  }
}, 60_000);
