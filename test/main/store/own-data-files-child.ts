/**
 * Reads one file of a data folder synchronously, in a process of its own, for
 * own-data-files.test.ts: a read that blocks for ever blocks this process, not the test's.
 * Prints what was read as one JSON line.
 */
import { SettingsFile } from '../../../main/app/desk-settings';
import { loadServiceHolds } from '../../../main/store/service-holds';

const [kind, dataDir] = process.argv.slice(2);
if (dataDir === undefined) throw new Error('usage: own-data-files-child <settings|holds> <dataDir>');
const read =
  kind === 'settings'
    ? new SettingsFile(dataDir).get()
    : loadServiceHolds(dataDir, { baseUrl: 'https://sign.example', clientId: 'desk' });
process.stdout.write(`${JSON.stringify(read)}\n`);
