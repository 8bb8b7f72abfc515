import { describe, expect, it } from 'vitest';
import type { SigningOptions } from '../../../shared/domain/batch';
import type { Participant } from '../../../shared/service/wire';
import {
  EMPTY_PARTICIPANT,
  canSave,
  duplicateEmails,
  fromOptions,
  fromParticipant,
  localeError,
  participantErrors,
  toOptions,
  toParticipant,
  toParticipants,
  type OptionsDraft,
  type ParticipantDraft,
} from '../../../renderer/src/state/participant-rules';

const VALID: ParticipantDraft = {
  participantType: 'signer',
  isInternal: false,
  role: 'Tenant',
  name: 'Anne Dupré',
  email: 'anne@example.fr',
  signingOrder: '',
};

function draft(overrides: Partial<ParticipantDraft> = {}): ParticipantDraft {
  return { ...VALID, ...overrides };
}

describe('participantErrors', () => {
  it.each<[string, Partial<ParticipantDraft>, ReturnType<typeof participantErrors>]>([
    ['an e-mail without domain', { email: 'anne@' }, { email: 'E-mail must be a valid e-mail address.' }],
    [
      'an e-mail without @',
      { email: 'anne.example.fr' },
      { email: 'E-mail must be a valid e-mail address.' },
    ],
    ['an empty e-mail', { email: '' }, { email: 'E-mail is required.' }],
    ['an e-mail of spaces only', { email: '   ' }, { email: 'E-mail is required.' }],
    [
      'an e-mail of 255 characters',
      { email: `${'a'.repeat(243)}@example.com` },
      { email: 'E-mail must be at most 254 characters.' },
    ],
    ['an empty role', { role: '' }, { role: 'Role is required.' }],
    ['a role of spaces', { role: '   ' }, { role: 'Role is required.' }],
    ['a role of 101 characters', { role: 'r'.repeat(101) }, { role: 'Role must be at most 100 characters.' }],
    ['an empty name', { name: '' }, { name: 'Name is required.' }],
    ['a name of spaces', { name: ' \t ' }, { name: 'Name is required.' }],
    ['a name of 256 characters', { name: 'n'.repeat(256) }, { name: 'Name must be at most 255 characters.' }],
    ['a signing order of 0', { signingOrder: '0' }, { signingOrder: 'Signing order must be at least 1.' }],
    [
      'a negative signing order',
      { signingOrder: '-2' },
      { signingOrder: 'Signing order must be at least 1.' },
    ],
    [
      'a fractional signing order',
      { signingOrder: '1.5' },
      { signingOrder: 'Signing order must be a whole number.' },
    ],
    [
      'a signing order in letters',
      { signingOrder: 'abc' },
      { signingOrder: 'Signing order must be a whole number.' },
    ],
    [
      'a signing order in exponent form',
      { signingOrder: '1e2' },
      { signingOrder: 'Signing order must be a whole number.' },
    ],
    [
      'several wrong fields',
      { name: '', email: 'anne@', signingOrder: '0' },
      {
        name: 'Name is required.',
        email: 'E-mail must be a valid e-mail address.',
        signingOrder: 'Signing order must be at least 1.',
      },
    ],
  ])('tells the user about %s', (_name, overrides, expected) => {
    expect(participantErrors(draft(overrides))).toEqual(expected);
    expect(toParticipant(draft(overrides))).toBeUndefined();
  });

  it.each<[string, Partial<ParticipantDraft>]>([
    ['a complete signer', {}],
    ['an observer', { participantType: 'observer' }],
    ['an internal participant', { isInternal: true }],
    ['a signing order of 1', { signingOrder: '1' }],
    ['a signing order with spaces', { signingOrder: ' 3 ' }],
    ['an e-mail with spaces around it', { email: '  anne@example.fr ' }],
    ['a role of exactly 100 characters', { role: 'r'.repeat(100) }],
  ])('finds nothing wrong with %s', (_name, overrides) => {
    expect(participantErrors(draft(overrides))).toEqual({});
  });

  it('finds an empty participant incomplete', () => {
    expect(participantErrors(EMPTY_PARTICIPANT)).toEqual({
      role: 'Role is required.',
      name: 'Name is required.',
      email: 'E-mail is required.',
    });
  });
});

describe('toParticipant', () => {
  it('gives the participant exactly as the service receives it', () => {
    const result = toParticipant(
      draft({ email: '  anne@example.fr  ', signingOrder: ' 2 ', role: 'Tenant', name: 'Anne Dupré' }),
    );
    expect(result).toStrictEqual({
      participant_type: 'signer',
      role: 'Tenant',
      name: 'Anne Dupré',
      email: 'anne@example.fr',
      signing_order: 2,
    });
  });

  it('sends is_internal only for an internal participant', () => {
    expect(toParticipant(draft({ isInternal: false }))).not.toHaveProperty('is_internal');
    expect(toParticipant(draft({ isInternal: true }))).toHaveProperty('is_internal', true);
  });

  it('leaves the signing order out when none is given', () => {
    expect(toParticipant(draft({ signingOrder: '' }))).not.toHaveProperty('signing_order');
    expect(toParticipant(draft({ signingOrder: '   ' }))).not.toHaveProperty('signing_order');
  });

  it('keeps an observer an observer', () => {
    expect(toParticipant(draft({ participantType: 'observer' }))).toHaveProperty(
      'participant_type',
      'observer',
    );
  });
});

describe('fromParticipant', () => {
  it('shows a participant in the editor’s fields', () => {
    expect(
      fromParticipant({
        participant_type: 'observer',
        is_internal: true,
        role: 'Notary',
        name: 'Zoë',
        email: 'zoe@example.fr',
        signing_order: 3,
      }),
    ).toEqual({
      participantType: 'observer',
      isInternal: true,
      role: 'Notary',
      name: 'Zoë',
      email: 'zoe@example.fr',
      signingOrder: '3',
    });
  });

  it('shows no order and not internal when the participant has neither', () => {
    expect(
      fromParticipant({ participant_type: 'signer', role: 'Tenant', name: 'Anne', email: 'anne@example.fr' }),
    ).toMatchObject({ isInternal: false, signingOrder: '' });
  });

  it.each<[string, Participant]>([
    ['a bare signer', { participant_type: 'signer', role: 'Tenant', name: 'Anne', email: 'anne@example.fr' }],
    [
      'an internal observer with an order',
      {
        participant_type: 'observer',
        is_internal: true,
        role: 'Notary',
        name: 'Zoë',
        email: 'zoe@example.fr',
        signing_order: 2,
      },
    ],
  ])('gives back the same participant after editing nothing (%s)', (_name, participant) => {
    expect(toParticipant(fromParticipant(participant))).toStrictEqual(participant);
  });
});

describe('duplicateEmails', () => {
  it('finds nothing when every e-mail is different', () => {
    expect(duplicateEmails([draft({ email: 'a@example.fr' }), draft({ email: 'b@example.fr' })])).toEqual([]);
  });

  it('finds the same e-mail written in different cases and with spaces, once', () => {
    expect(
      duplicateEmails([
        draft({ email: 'Anne@Example.fr' }),
        draft({ email: ' anne@example.FR ' }),
        draft({ email: 'anne@example.fr' }),
        draft({ email: 'bob@example.fr' }),
      ]),
    ).toEqual(['anne@example.fr appears twice; each participant needs their own e-mail address.']);
  });

  it('reports each duplicated address', () => {
    expect(
      duplicateEmails([
        draft({ email: 'a@example.fr' }),
        draft({ email: 'b@example.fr' }),
        draft({ email: 'b@example.fr' }),
        draft({ email: 'a@example.fr' }),
      ]),
    ).toEqual([
      'b@example.fr appears twice; each participant needs their own e-mail address.',
      'a@example.fr appears twice; each participant needs their own e-mail address.',
    ]);
  });

  it('ignores participants whose e-mail is not filled in yet', () => {
    expect(duplicateEmails([draft({ email: '' }), draft({ email: '  ' }), draft({ email: '' })])).toEqual([]);
  });
});

describe('signing options', () => {
  const EMPTY_OPTIONS: OptionsDraft = {
    transactionType: '',
    enforceOrder: '',
    ownerMustSign: '',
    ceremonyMode: '',
    meetingProvider: '',
    evidenceLevel: '',
    locale: '',
  };

  it('shows unset options as empty fields', () => {
    expect(fromOptions({})).toEqual(EMPTY_OPTIONS);
  });

  it('stores empty fields as unset, with no key at all', () => {
    const options = toOptions({ ...EMPTY_OPTIONS, transactionType: '   ', locale: ' ' });
    expect(options).toStrictEqual({});
    expect(Object.keys(options)).toEqual([]);
  });

  it.each<[SigningOptions]>([
    [{}],
    [
      {
        transactionType: 'lease',
        enforceOrder: true,
        ownerMustSign: false,
        ceremonyMode: 'remote',
        meetingProvider: 'teams',
        evidenceLevel: 'advanced',
        locale: 'fr-FR',
      },
    ],
    [{ enforceOrder: false, locale: 'es-419' }],
  ])('gives back the same options after editing nothing (%o)', (options) => {
    expect(toOptions(fromOptions(options))).toStrictEqual(options);
  });

  it.each<[OptionsDraft['enforceOrder'], boolean | undefined]>([
    ['yes', true],
    ['no', false],
    ['', undefined],
  ])('reads the choice "%s" as %s', (choice, value) => {
    const options = toOptions({ ...EMPTY_OPTIONS, enforceOrder: choice, ownerMustSign: choice });
    expect(options.enforceOrder).toBe(value);
    expect(options.ownerMustSign).toBe(value);
    expect('enforceOrder' in options).toBe(value !== undefined);
    expect(fromOptions(options)).toMatchObject({ enforceOrder: choice, ownerMustSign: choice });
  });

  it('trims the text it stores', () => {
    expect(toOptions({ ...EMPTY_OPTIONS, transactionType: '  lease ', locale: ' fr-FR ' })).toStrictEqual({
      transactionType: 'lease',
      locale: 'fr-FR',
    });
  });
});

describe('canSave and toParticipants', () => {
  const options = fromOptions({ locale: 'fr-FR' });

  it('allows saving valid participants with a good locale, and gives their wire form in order', () => {
    const drafts = [draft(), draft({ email: 'bob@example.fr', name: 'Bob', signingOrder: '2' })];
    expect(canSave(drafts, options)).toBe(true);
    expect(canSave([], options)).toBe(true);
    expect(
      toParticipants(drafts).map((participant) => [participant.email, participant.signing_order]),
    ).toEqual([
      ['anne@example.fr', undefined],
      ['bob@example.fr', 2],
    ]);
  });

  it.each<[string, ParticipantDraft[], OptionsDraft]>([
    ['an invalid participant', [draft(), draft({ email: 'bob@' })], options],
    ['the same e-mail twice', [draft(), draft({ email: 'ANNE@example.fr' })], options],
    ['a malformed locale', [draft()], { ...options, locale: 'fr' }],
  ])('refuses to save with %s', (_name, drafts, withOptions) => {
    expect(canSave(drafts, withOptions)).toBe(false);
  });

  it('leaves invalid drafts out of the wire form', () => {
    expect(
      toParticipants([draft({ email: 'bob@' }), draft()]).map((participant) => participant.email),
    ).toEqual(['anne@example.fr']);
  });
});

describe('localeError', () => {
  it.each(['fr-FR', 'en-GB', 'es-419', 'fil-PH', '', '   ', ' fr-FR '])('accepts "%s"', (locale) => {
    expect(localeError(locale)).toBeUndefined();
  });

  it.each(['fr', 'fr_FR', 'FR-fr', 'fr-fr', 'french', 'fr-FRA', 'fr-FR-x'])('rejects "%s"', (locale) => {
    expect(localeError(locale)).toBe('Locale must look like language-REGION, e.g. fr-FR or en-GB.');
  });
});
