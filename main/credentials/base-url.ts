import { z } from 'zod';
import { canonicalBaseUrl } from '../batch/batch-connection';

/** Names of this computer: the only hosts http:// (no encryption) is accepted for. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An http(s) URL, https unless it points at this computer; stored without a trailing slash. */
export const baseUrlSchema = z
  .string()
  .trim()
  .min(1, 'The base URL is required, e.g. https://sign.example.com.')
  .transform((text, context) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      context.addIssue({
        code: 'custom',
        message: 'The base URL must be a full address, e.g. https://sign.example.com.',
      });
      return z.NEVER;
    }
    const problem =
      url.protocol !== 'https:' && url.protocol !== 'http:'
        ? 'The base URL must start with https://, e.g. https://sign.example.com.'
        : url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)
          ? 'The base URL must use https:// so the client secret is encrypted on the way; http:// is accepted only for this computer (localhost, 127.0.0.1 or [::1]).'
          : url.username || url.password
            ? 'The base URL cannot contain a user name or password; the client id and secret are entered separately.'
            : url.search || url.hash
              ? 'The base URL cannot contain a query (?…) or fragment (#…).'
              : undefined;
    if (problem) {
      context.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return canonicalBaseUrl(url.href);
  });
