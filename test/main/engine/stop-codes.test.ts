/**
 * Why the engine stopped, and why a file was not added, as codes of a union: a misspelt one does
 * not compile (the `@ts-expect-error` lines below are checked by `npm run typecheck`), and each
 * of the engine's own stops has its words in every language.
 */
import { describe, expect, it } from 'vitest';
import type { RejectedFile } from '../../../main/engine/batch-preparation';
import type { RunStop } from '../../../main/engine/send-run';
import { ENGINE_STOP_CODES, engineReasonText, type EngineReason } from '../../../main/domain/send-messages';
import { LANGUAGES } from '../../../shared/i18n/languages';
import { createTranslator } from '../../../shared/i18n/translator';
import { serviceErrorCode } from '../../../shared/service/error-codes';

describe('the engine’s stops', () => {
  it('are its own codes or the service’s: a misspelt one does not compile', () => {
    const stops: RunStop[] = [
      { code: 'storage_full', message: 'The disk is full.' },
      { code: serviceErrorCode('tenant_suspended'), message: 'Suspended.' },
      // @ts-expect-error a misspelt stop does not compile
      { code: 'storage_ful', message: 'The disk is full.' },
    ];
    const reasons: EngineReason[] = [
      { code: 'other_connection', connection: { baseUrl: 'https://sign.example.com', clientId: 'desk' } },
      { code: 'upstream_unavailable' },
      // @ts-expect-error a misspelt reason does not compile
      { code: 'batch_unbond' },
    ];
    expect([...stops, ...reasons].map((stop) => stop.code)).toContain('storage_ful');
  });

  it('each of the engine’s own is worded in every language, never shown as its code', () => {
    for (const language of LANGUAGES) {
      const { t } = createTranslator(language);
      for (const code of ENGINE_STOP_CODES) {
        const reason: EngineReason =
          code === 'other_connection'
            ? { code, connection: { baseUrl: 'https://sign.example.com', clientId: 'desk' } }
            : { code };
        const words = engineReasonText(reason, t);
        expect(words, `${language} ${code}`).not.toContain(code);
        if (language !== 'en') expect(words, `${language} ${code}`).not.toBe(engineReasonText(reason));
      }
    }
  });
});

describe('a file that was not added', () => {
  it('says why by a code of its own: a misspelt one does not compile', () => {
    const files: RejectedFile[] = [
      { path: '/scans/a.pdf', code: 'already_in_batch', message: 'Already in this batch.', sameAs: 'b.pdf' },
      {
        path: '/scans/c.pdf',
        code: 'unreadable_file',
        message: 'Cannot read the file.',
        systemCode: 'EACCES',
      },
      // @ts-expect-error a misspelt code does not compile
      { path: '/scans/d.pdf', code: 'unreadable', message: 'Cannot read the file.' },
    ];
    expect(files.map((file) => file.code)).toContain('unreadable');
  });
});
