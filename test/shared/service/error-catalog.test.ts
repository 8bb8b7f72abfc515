import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, userMessage } from '../../../shared/service/error-catalog';

/** Every error code that spec §7 lists, read from the spec itself (docs/spec, the copy this version implements). */
function specErrorCodes(): string[] {
  const spec = readFileSync(new URL('../../../docs/spec/signing-service-v1.md', import.meta.url), 'utf8');
  const section = spec.slice(spec.indexOf('## 7. Errors'), spec.indexOf('## 8. Limits'));
  return [...section.matchAll(/^\| \d{3} \| (\w+) \|/gm)].map((match) => match[1] as string);
}

describe('error catalog', () => {
  it('has a message for every error code of spec §7', () => {
    const codes = specErrorCodes();
    expect(codes.length).toBeGreaterThanOrEqual(16);
    for (const code of codes) expect(Object.keys(ERROR_CATALOG)).toContain(code);
  });

  it('tells what happened and what to do', () => {
    expect(userMessage('pdf_too_large')).toBe(
      'The PDF is larger than 50 MiB. Reduce the file (for example, compress images or split the document) and add it again.',
    );
  });

  it('shows an unknown code with the service message', () => {
    expect(userMessage('quota_exceeded', 'Monthly quota reached')).toBe(
      'The signing service answered with error "quota_exceeded": Monthly quota reached',
    );
    expect(userMessage('quota_exceeded')).toBe('The signing service answered with error "quota_exceeded"');
  });
});
