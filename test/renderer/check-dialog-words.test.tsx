import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CheckDialog } from '../../renderer/src/screens/check-dialog';
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
