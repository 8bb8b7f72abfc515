import { describe, expect, it } from 'vitest';
import {
  isPreparedOrLater,
  stageOf,
  stageOfStored,
  type RequestStage,
  type StatusFacts,
} from '../../../shared/service/status';

/**
 * The one rule of what a status means (README "Answers the spec does not pin down": status values are
 * an open set; a plainly final one ends tracking; an unknown non-final one is read slowly).
 */
const SPEC_DONE: StatusFacts = {
  status: 'completed',
  documentStatus: 'finalized',
  evidenceReady: true,
  finalizedAt: '2026-11-02T11:00:00Z',
};
const facts = (status: string, more: Partial<StatusFacts> = {}): StatusFacts => ({
  status,
  evidenceReady: false,
  ...more,
});

describe('stageOf: where a request stands by its status read', () => {
  it.each<[string, StatusFacts, RequestStage]>([
    ["the spec's final state", SPEC_DONE, 'completed'],
    ['completed, evidence not ready yet: still read', { ...SPEC_DONE, evidenceReady: false }, 'open'],
    ['completed without finalized_at yet', { ...SPEC_DONE, finalizedAt: undefined }, 'open'],
    ['completed, document not finalized yet', { ...SPEC_DONE, documentStatus: 'prepared' }, 'open'],
    ['prepared', facts('prepared', { documentStatus: 'prepared' }), 'open'],
    ['in progress', facts('in_progress', { documentStatus: 'prepared' }), 'open'],
    // The service says it is under way: taken at its word, however another field looks.
    ['in progress whose finalized_at is set already', facts('in_progress', { finalizedAt: 'x' }), 'open'],
    ['declined', facts('declined'), 'ended'],
    ['expired', facts('expired', { documentStatus: 'prepared' }), 'ended'],
    ['cancelled', facts('cancelled'), 'ended'],
    ['canceled (American spelling)', facts('canceled'), 'ended'],
    ['voided', facts('voided'), 'ended'],
    ['rejected', facts('rejected'), 'ended'],
    ['DECLINED in capitals', facts('DECLINED'), 'ended'],
    [
      'an unknown status carrying finalized_at',
      facts('archived', { finalizedAt: '2026-11-02T11:00:00Z' }),
      'ended',
    ],
    ['an unknown status whose document is voided', facts('closed', { documentStatus: 'voided' }), 'ended'],
    [
      'an unknown status whose document is finalized',
      facts('sealed', { documentStatus: 'Finalized' }),
      'ended',
    ],
    ['on hold', facts('on_hold', { documentStatus: 'prepared' }), 'unrecognized'],
    ['awaiting payment', facts('awaiting_payment'), 'unrecognized'],
    ['an empty finalized_at is no time', facts('on_hold', { finalizedAt: ' ' }), 'unrecognized'],
  ])('%s → %s', (_name, read, stage) => {
    expect(stageOf(read)).toBe(stage);
  });
});

describe('stageOfStored: a status read as the journal keeps it', () => {
  it('reads a status stored by an earlier version the same way: its ended requests, not final then, are ended now', () => {
    // Written before this rule: `final` was the spec's completed state only.
    expect(stageOfStored({ ...facts('declined'), final: false })).toBe('ended');
    expect(stageOfStored({ ...SPEC_DONE, final: true })).toBe('completed');
    expect(stageOfStored({ ...facts('on_hold'), final: false })).toBe('unrecognized');
  });

  it('keeps a request stored as final final, even when its stored fields say less', () => {
    expect(stageOfStored({ status: 'completed', evidenceReady: true, final: true })).toBe('completed');
  });
});

describe('isPreparedOrLater: a request that has a ceremony to track', () => {
  it.each<[string, Parameters<typeof isPreparedOrLater>[0], boolean]>([
    ['prepared', { status: 'prepared' }, true],
    ['in progress', { status: 'in_progress' }, true],
    ['completed', { status: 'completed' }, true],
    ['a preparation time', { status: 'on_hold', preparedAt: '2026-11-02T10:00:00Z' }, true],
    ['a prepared document', { status: 'awaiting_payment', documentStatus: 'prepared' }, true],
    ['a finalized document', { status: 'sealed', documentStatus: 'finalized' }, true],
    ['not prepared yet', { status: 'draft', documentStatus: 'pending' }, false],
    ['an unknown status with nothing else', { status: 'on_hold' }, false],
  ])('%s → %s', (_name, read, expected) => {
    expect(isPreparedOrLater(read)).toBe(expected);
  });
});
