import { describe, expect, it } from 'vitest';
import { parseCliArgs } from '../../../main/cli/cli-args';

describe('--base-url', () => {
  it.each([
    ['HTTP://LOCALHOST:4010/', 'http://localhost:4010'],
    ['https://Sign.Example.com:443/api/', 'https://sign.example.com/api'],
  ])(
    'is spelled as a saved connection spells it (%s → %s), so the batch matches its profile',
    (typed, stored) => {
      const parsed = parseCliArgs(['watch', '--data-dir', 'D', '--base-url', typed]);
      expect(parsed.ok && parsed.value.baseUrl).toBe(stored);
    },
  );

  it('refuses a user name and password in the address (it would be stored and shown)', () => {
    const parsed = parseCliArgs(['watch', '--data-dir', 'D', '--base-url', 'https://u:p@sign.example.com']);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error.message).toContain(
      '--base-url: The base URL cannot contain a user name',
    );
  });
});
