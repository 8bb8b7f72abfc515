import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CheckDialog, checkLead } from '../../renderer/src/screens/check-dialog';
import { createTranslator } from '../../shared/i18n/translator';
import type { DocumentView } from '../../shared/ipc/views';

/**
 * What the check dialog offers, read as a person reads it: for each reason, the sections and
 * buttons it shows (the page drawn once, in English, the store's default language).
 */
// Drawn once on the server side: the dialog only asks the page which element had the focus.
beforeAll(() => vi.stubGlobal('window', { document: { activeElement: null } }));
afterAll(() => vi.unstubAllGlobals());

function dialogText(check: NonNullable<DocumentView['check']>): string {
  const document = {
    id: 'doc-1',
    externalReference: 'HR-7',
    check,
  } as unknown as DocumentView;
  const html = renderToStaticMarkup(
    <CheckDialog batchId="b" document={document} onClose={() => undefined} onResolved={() => undefined} />,
  );
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ');
}

describe('the check dialog: the ways on for each reason, in words that are true for it', () => {
  it('held at the service from another desk: follows that request; never calls it one "just created"', () => {
    const text = dialogText({
      reason: 'held_at_service',
      explanation: 'The service already holds the signing request sr_1 for HR-7.',
      newRequestId: 'sr_1',
    });
    expect(text).toContain('Follow the request the service already holds');
    expect(text).toContain('Follow sr_1');
    expect(text).toContain('Following it from here makes no new request');
    expect(text).not.toContain('just created');
    expect(text).not.toContain('cannot cancel the other one');
    expect(text).toContain('Link another request');
    expect(text).toContain('Send as a new request');
  });

  it('a new request after a lost answer: keeps "the request the service just created"', () => {
    const text = dialogText({
      reason: 'new_request_after_unknown',
      explanation: 'HR-7 may now have two signing requests at the service.',
      newRequestId: 'sr_2',
    });
    expect(text).toContain('Keep the request the service just created');
    expect(text).toContain('Keep sr_2');
    expect(text).not.toContain('Send as a new request');
  });

  it('created without an id: only linking; held by another batch: only sending anew on purpose', () => {
    const withoutId = dialogText({ reason: 'created_without_id', explanation: 'x' });
    expect(withoutId).toContain('Link the existing request');
    expect(withoutId).not.toContain('Send as a new request');
    expect(withoutId).not.toContain('Keep');
    const held = dialogText({
      reason: 'held_elsewhere',
      explanation: 'x',
      holder: { batchId: 'b2', batchName: 'Monday', fileName: 'offer.pdf' },
    });
    expect(held).toContain('Send as a new request');
    expect(held).not.toContain('Link');
  });
});

describe('the check dialog: one sentence first, the whole story behind a disclosure', () => {
  const checks: NonNullable<DocumentView['check']>[] = [
    { reason: 'key_refused', explanation: 'The whole story.' },
    { reason: 'new_request_after_unknown', explanation: 'The whole story.', newRequestId: 'sr_2' },
    { reason: 'created_without_id', explanation: 'The whole story.' },
    {
      reason: 'held_elsewhere',
      explanation: 'The whole story.',
      holder: { batchId: 'b2', batchName: 'Monday', fileName: 'offer.pdf' },
    },
    { reason: 'held_at_service', explanation: 'The whole story.', newRequestId: 'sr_1' },
    { reason: 'held_at_service', explanation: 'The whole story.' },
  ];

  /** What the dialog says first (what it is described by), and behind its disclosure. */
  function parts(check: NonNullable<DocumentView['check']>) {
    const html = renderToStaticMarkup(
      <CheckDialog
        batchId="b"
        document={{ id: 'doc-1', externalReference: 'HR-7', check } as unknown as DocumentView}
        onClose={() => undefined}
        onResolved={() => undefined}
      />,
    );
    const text = (markup: string | undefined) =>
      (markup ?? '')
        .replace(/<[^>]+>/g, '')
        .replace(/&#x27;/g, "'")
        .replace(/&quot;/g, '"');
    const describedBy = /<dialog[^>]*aria-describedby="([^"]+)"/.exec(html)?.[1];
    const lead = new RegExp(`<h2[^>]*>.*?</h2><p id="${describedBy}"[^>]*>(.*?)</p><details`).exec(html)?.[1];
    const details = /<details[^>]*><summary>(.*?)<\/summary><p>(.*?)<\/p><\/details>/.exec(html);
    return { lead: text(lead), summary: text(details?.[1]), story: text(details?.[2]) };
  }

  it('right under the title: what happened and what to do, then "What happened, and where to look"', () => {
    expect(parts(checks[0]!)).toEqual({
      lead: 'A signing request for HR-7 may already exist at the service: look for it there and link it, or send HR-7 as a new request.',
      summary: 'What happened, and where to look',
      story: 'The whole story.',
    });
    for (const check of checks) expect(parts(check).story).toBe('The whole story.');
  });

  it.each(['en', 'fr', 'de'] as const)(
    'for every reason, a first sentence short enough to read at a glance (%s)',
    (language) => {
      const { t } = createTranslator(language);
      const leads = checks.map((check) => checkLead(check, 'HR-7', t));
      for (const lead of leads) {
        expect(lead).toContain('HR-7');
        expect(lead.length).toBeLessThanOrEqual(200);
      }
      // One sentence for each case, not one for all.
      expect(new Set(leads).size).toBe(checks.length);
      if (language !== 'en')
        expect(leads).not.toContain(checkLead(checks[0]!, 'HR-7', createTranslator('en').t));
    },
  );
});
