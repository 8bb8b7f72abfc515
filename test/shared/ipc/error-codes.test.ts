/**
 * The codes as types: what the app writes is listed (a misspelt one does not compile: the
 * `@ts-expect-error` lines below are checked by `npm run typecheck`), and what the service sends
 * is kept as it said it.
 */
import { describe, expect, it } from 'vitest';
import { BRIDGE_ERROR_CODES, DESK_ERROR_CODES, type ErrorCode } from '../../../shared/ipc/error-codes';
import { addDocumentsResultSchema, type AddDocumentsResult, type ErrorView } from '../../../shared/ipc/views';
import { ERROR_CATALOG, type CatalogCode } from '../../../shared/service/error-catalog';
import {
  OAUTH_ERROR_CODES,
  serviceErrorCode,
  type OAuthErrorCode,
  type ServiceErrorCode,
  type UnlistedCode,
} from '../../../shared/service/error-codes';

/** True only when `A` and `B` are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

describe('error codes', () => {
  it('each code means one thing: the catalog, OAuth, the desk and the bridge share none', () => {
    const all = [
      ...Object.keys(ERROR_CATALOG),
      ...OAUTH_ERROR_CODES,
      ...DESK_ERROR_CODES,
      ...BRIDGE_ERROR_CODES,
    ];
    expect(all.filter((code, index) => all.indexOf(code) !== index)).toEqual([]);
  });

  it('a code the app writes must be listed; one the service sent is kept as it said it', () => {
    const written: ErrorView = { code: 'review_outdated', message: 'Review again.' };
    // @ts-expect-error a misspelt code does not compile
    const misspelt: ErrorView = { code: 'reveiw_outdated', message: 'Review again.' };
    // @ts-expect-error nor does a code the service never listed, written as if it were
    const unlisted: ServiceErrorCode = 'tenant_suspended';
    const said: ErrorCode = serviceErrorCode('tenant_suspended');
    expect([written.code, misspelt.code, unlisted, said]).toEqual([
      'review_outdated',
      'reveiw_outdated',
      'tenant_suspended',
      'tenant_suspended',
    ]);
  });

  it('why a file was not added is one of its codes: a misspelt one does not compile, nor crosses the bridge', () => {
    const answer: AddDocumentsResult = {
      added: 0,
      rejected: [{ path: '/scans/a.pdf', code: 'already_in_batch', message: 'Already in this batch.' }],
    };
    const misspelt: AddDocumentsResult = {
      added: 0,
      // @ts-expect-error a misspelt code does not compile
      rejected: [{ path: '/scans/a.pdf', code: 'allready_in_batch', message: 'Already in this batch.' }],
    };
    expect(addDocumentsResultSchema.safeParse(answer).success).toBe(true);
    expect(addDocumentsResultSchema.safeParse(misspelt).success).toBe(false);
  });

  it('a switch that handles every listed code is left with only a code the service sent', () => {
    const exhaustive: Same<Exclude<ServiceErrorCode, CatalogCode | OAuthErrorCode>, UnlistedCode> = true;
    expect(exhaustive).toBe(true);
  });
});
