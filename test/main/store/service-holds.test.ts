import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadServiceHolds, saveServiceHold, SERVICE_HOLDS_FILE } from '../../../main/store/service-holds';
import { makeTempFolder, type TempFolder } from '../../support/pdf-files';

let folder: TempFolder | undefined;
afterEach(() => folder?.remove());

const office = { baseUrl: 'https://user:pa55word@sign.example.com/api/?x=1', clientId: 'desk' };
const sandbox = { baseUrl: 'https://sandbox.example.com', clientId: 'desk' };
const NOW = 1_800_000_000_000;
const clock = { now: () => NOW };

describe('Retry-After holds kept in the data folder', () => {
  it('a hold saved by one process is read by the next, for its own connection only', async () => {
    folder = makeTempFolder('holds-');
    const dir = folder.path;
    expect(loadServiceHolds(dir, office, clock)).toEqual({});
    await saveServiceHold(dir, office, 'uploadDocument', NOW + 120_000, clock);
    await saveServiceHold(dir, office, 'uploadDocument', NOW + 60_000, clock); // shorter: the longer stays
    await saveServiceHold(dir, sandbox, 'readSigningRequest', NOW + 5_000, clock);
    expect(loadServiceHolds(dir, office, clock)).toEqual({ uploadDocument: NOW + 120_000 });
    expect(loadServiceHolds(dir, sandbox, clock)).toEqual({ readSigningRequest: NOW + 5_000 });
    // Over once its time has passed.
    expect(loadServiceHolds(dir, office, { now: () => NOW + 120_000 })).toEqual({});
  });

  it('keeps no credentials of the address, and drops holds longer than a day (a clock set wrong)', async () => {
    folder = makeTempFolder('holds-');
    const dir = folder.path;
    await saveServiceHold(dir, office, 'createSigningRequest', NOW + 3_600_000, clock);
    const text = readFileSync(join(dir, SERVICE_HOLDS_FILE), 'utf8');
    expect(text).not.toMatch(/pa55word|user:|x=1/);
    expect(text).toContain('https://sign.example.com/api desk');
    writeFileSync(
      join(dir, SERVICE_HOLDS_FILE),
      JSON.stringify({ 'https://sign.example.com/api desk': { createSigningRequest: NOW + 2 * 86_400_000 } }),
    );
    expect(loadServiceHolds(dir, office, clock)).toEqual({});
  });

  it('an unreadable file holds nothing and is replaced by the next hold', async () => {
    folder = makeTempFolder('holds-');
    const dir = folder.path;
    writeFileSync(join(dir, SERVICE_HOLDS_FILE), '{ not json');
    expect(loadServiceHolds(dir, office, clock)).toEqual({});
    await saveServiceHold(dir, office, 'obtainToken', NOW + 1_000, clock);
    expect(loadServiceHolds(dir, office, clock)).toEqual({ obtainToken: NOW + 1_000 });
  });
});
