import { describe, expect, it } from 'vitest';
import { sendProblems } from '../../../main/domain/send-readiness';
import type { DocumentDraft } from '../../../shared/domain/batch';
import { createTranslator } from '../../../shared/i18n/translator';

describe('the review’s words about documents that cannot go yet', () => {
  it('agree with their count in every language', () => {
    const fr = createTranslator('fr');
    expect(fr.t('review.blockedHeading', { count: 1 })).toBe('1 document ne peut pas encore partir');
    expect(fr.t('review.blockedHint', { count: 1 })).toMatch(/^Il reste dans le lot, non envoyé\u00a0;/);
    expect(fr.t('review.blockedHint', { count: 2 })).toMatch(/^Ils restent dans le lot, non envoyés\u00a0;/);
    expect(createTranslator('en').t('review.blockedHint', { count: 1 })).toMatch(/^It stays in the batch/);
    expect(createTranslator('en').t('review.blockedHint', { count: 3 })).toMatch(/^They stay in the batch/);
    expect(createTranslator('de').t('review.blockedHint', { count: 1 })).toMatch(/^Es bleibt ungesendet/);
  });

  it('put a document’s reference before its reasons as each language punctuates', () => {
    const values = { reference: 'RH-2', problems: 'Ajoutez au moins un destinataire.' };
    expect(createTranslator('fr').t('review.blockedDocument', values)).toBe(
      'RH-2\u00a0: Ajoutez au moins un destinataire.',
    );
    expect(
      createTranslator('en').t('review.blockedDocument', { ...values, problems: 'Add a recipient.' }),
    ).toBe('RH-2: Add a recipient.');
  });
});

describe('a participant’s problem before sending', () => {
  it('is the editor’s sentence in the person’s language, not the schema’s English', () => {
    const draft: DocumentDraft = {
      id: 'd',
      externalReference: 'RH-9',
      pdf: { originalName: 'a.pdf', storedFilename: 'a.pdf', sizeBytes: 10, sha256: 'a'.repeat(64) },
      recipients: [{ participant_type: 'signer', role: 'Salarié', name: '', email: 'zoe@example.com' }],
      extraParticipants: [],
      options: {},
    };
    expect(sendProblems({ defaultRecipients: [] }, draft, createTranslator('fr').t)).toEqual([
      'Participant 1 (zoe@example.com)\u00a0: Le nom est obligatoire.',
    ]);
    expect(sendProblems({ defaultRecipients: [] }, draft, createTranslator('de').t)).toEqual([
      `Teilnehmende Person 1 (zoe@example.com): ${createTranslator('de').t('common.fieldRequired', { field: 'name' })}`,
    ]);
  });
});
