import { describe, expect, it } from 'vitest';
import { describeState } from '../../renderer/src/format';

const tracking = (status: string, final = false) => ({
  status,
  evidenceReady: final,
  readAt: '2026-11-23T10:00:00Z',
  final,
});

describe('the words for a document state', () => {
  it('words the class main computed, never deciding it from the phase or status', () => {
    // A document main classifies as gone reads so whatever its phase and last status say.
    expect(describeState({ class: 'gone', phase: 'prepared', tracking: tracking('in_progress') })).toBe(
      'No longer at the service',
    );
    expect(
      describeState({ class: 'completed', phase: 'prepared', tracking: tracking('completed', true) }),
    ).toBe('Completed — evidence ready');
    expect(describeState({ class: 'needs_check', phase: 'needs_check' })).toBe('Needs your check');
    expect(describeState({ class: 'not_sent', phase: 'draft' })).toBe('Not sent');
  });

  it('adds the detail a user reads: the step while sending, the service status while waiting', () => {
    expect(describeState({ class: 'sending', phase: 'queued' }, 'uploading')).toBe('Uploading');
    expect(describeState({ class: 'waiting', phase: 'prepared', tracking: tracking('completed') })).toBe(
      'Completed — evidence pending',
    );
    expect(describeState({ class: 'waiting', phase: 'prepared', tracking: tracking('in_progress') })).toBe(
      'Signing in progress',
    );
    expect(describeState({ class: 'waiting', phase: 'prepared', tracking: tracking('on_hold') })).toBe(
      'on_hold',
    );
    expect(describeState({ class: 'waiting', phase: 'prepared' })).toBe('Waiting for signatures');
  });
});
