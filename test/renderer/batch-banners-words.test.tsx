import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { BatchBanners } from '../../renderer/src/components/batch-banners';
import { noDocuments } from '../../shared/domain/document-counts';
import type { BatchDetail, EngineStateView } from '../../shared/ipc/views';

/**
 * The banners above a batch's table, read as a person reads them (drawn once, in English, the
 * store's default language): one word for the service's state at a time, and documents no
 * longer at their service explained with what to do.
 */

function bannerText(engine: EngineStateView, gone = 0): string {
  const detail = {
    id: 'b',
    engine,
    documents: [],
  } as unknown as BatchDetail;
  return renderToStaticMarkup(<BatchBanners detail={detail} counts={{ ...noDocuments(), gone }} />)
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ');
}

const SLOW = 'The service is slow to answer';
const UNREACHABLE = 'The signing service cannot be reached';

describe('the service’s state: slow or cannot be reached, never both', () => {
  it('sending waits for a service that cannot be reached (its calls still unanswered): only the wait is said', () => {
    const text = bannerText({
      state: 'waiting',
      reason: `${UNREACHABLE}. Sending resumes by itself.`,
      slow: true,
    });
    expect(text).toContain(UNREACHABLE);
    expect(text).not.toContain(SLOW);
  });

  it('sending runs and its calls are unanswered: only the slowness is said, with Pause sending', () => {
    const text = bannerText({ state: 'running', slow: true });
    expect(text).toContain(SLOW);
    expect(text).toContain('Pause sending');
    expect(text).not.toContain(UNREACHABLE);
  });
});

describe('a pause that waits for the calls already sent', () => {
  const DRAINING = 'Pausing: waiting for the answer to 1 call already sent…';

  it('is said, even while those calls are slow to answer: not "still trying", and no second Pause sending', () => {
    // Main's view while a pause drains: the run still runs, its reason says what it waits for.
    for (const slow of [true, false]) {
      const text = bannerText({ state: 'running', reason: DRAINING, ...(slow ? { slow } : {}) });
      expect(text).toContain(DRAINING);
      expect(text).not.toContain(SLOW);
      expect(text).not.toContain('Pause sending');
    }
  });
});

describe('documents no longer at their service', () => {
  it('are explained, with what to do: Check again, then the service’s own website or support', () => {
    const one = bannerText({ state: 'idle' }, 1);
    expect(one).toContain('1 document is no longer at the service');
    expect(one).toContain('has no such signing request');
    expect(one).toContain('Use “Check again” on its row');
    expect(one).toContain('ask its support');
    expect(bannerText({ state: 'idle' }, 3)).toContain('3 documents are no longer at the service');
    expect(bannerText({ state: 'idle' }, 0)).not.toContain('no longer at the service');
  });
});
