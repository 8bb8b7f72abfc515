import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUTOSTART_ID, linuxAutostartItem } from '../../../main/shell/login-item';

/**
 * The Linux autostart entry read back as the Desktop Entry Specification says a reader must:
 * https://specifications.freedesktop.org/desktop-entry-spec/latest/ (value types, the Exec key).
 */

/** The key file's string escapes; any other backslash sequence is invalid (GLib refuses the value). */
const STRING_ESCAPES: Readonly<Record<string, string>> = { s: ' ', n: '\n', t: '\t', r: '\r', '\\': '\\' };

function unescapeString(value: string): string {
  return value.replace(/\\(.?)/g, (sequence, character: string) => {
    const unescaped = STRING_ESCAPES[character];
    if (unescaped === undefined) throw new Error(`invalid escape ${JSON.stringify(sequence)}`);
    return unescaped;
  });
}

/** Each group's keys in file order, values unescaped; a key written twice is an error. */
function readKeyFile(text: string): Map<string, [string, string][]> {
  const groups = new Map<string, [string, string][]>();
  let current: [string, string][] | undefined;
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const group = /^\[([^\]]+)\]$/.exec(line);
    if (group) {
      current = [];
      groups.set(group[1]!, current);
      continue;
    }
    const equals = line.indexOf('=');
    if (equals < 0 || !current) throw new Error(`not a key: ${JSON.stringify(line)}`);
    const key = line.slice(0, equals).trim();
    if (current.some(([existing]) => existing === key)) throw new Error(`key ${key} twice`);
    const value = line.slice(equals + 1).replace(/^[ \t]+/, '');
    // A string value holds no control character as such (some readers end a line at a CR).
    if (/\p{Cc}/u.test(value)) throw new Error(`raw control character in ${key}`);
    current.push([key, unescapeString(value)]);
  }
  return groups;
}

/** Characters an unquoted Exec argument must not hold. */
const RESERVED = /[ \t\n"'\\><~|&;$*?#()`]/;

/**
 * The Exec value split into arguments: quoting undone (inside double quotes only `\"`, `` \` ``,
 * `\$` and `\\`), then field codes: `%%` is a literal `%`, and no field code may sit in a quoted
 * argument.
 */
function execArguments(exec: string): string[] {
  const args: string[] = [];
  let index = 0;
  while (index < exec.length) {
    if (exec[index] === ' ') {
      index += 1;
      continue;
    }
    let arg = '';
    if (exec[index] === '"') {
      index += 1;
      while (exec[index] !== '"') {
        if (index >= exec.length) throw new Error('unterminated quote');
        if (exec[index] === '\\') {
          const next = exec[index + 1] ?? '';
          if (!'"`$\\'.includes(next) || next === '') throw new Error(`invalid quoting \\${next}`);
          arg += next;
          index += 2;
        } else {
          arg += exec[index];
          index += 1;
        }
      }
      index += 1;
      if (index < exec.length && exec[index] !== ' ') throw new Error('text after a quoted argument');
      args.push(
        arg.replace(/%(.?)/g, (code, character: string) => {
          if (character !== '%') throw new Error(`field code ${code} in a quoted argument`);
          return '%';
        }),
      );
    } else {
      while (index < exec.length && exec[index] !== ' ') arg += exec[index++];
      if (RESERVED.test(arg)) throw new Error(`unquoted reserved character in ${JSON.stringify(arg)}`);
      args.push(arg.replace(/%%/g, '%'));
    }
  }
  return args;
}

describe('the Linux autostart entry', () => {
  let configDir: string;
  const entryFile = () => join(configDir, 'autostart', `${AUTOSTART_ID}.desktop`);
  const enable = (executable: string, productName = 'Signing Batch Desk') =>
    linuxAutostartItem({ configDir, executable, productName }).setEnabled(true);

  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), 'harden1-autostart-'));
  });
  afterEach(() => {
    rmSync(configDir, { recursive: true, force: true });
  });

  // Every path has a space, as "My Apps" would; each adds one character the entry must escape.
  it.each([
    ['a line break', '/home/ana/My Apps/desk\nExec=/tmp/evil.AppImage'],
    ['a carriage return and a tab', '/home/ana/My Apps/desk\r\tX-Evil=1.AppImage'],
    ['a percent sign, a field code once unescaped', '/home/ana/My Apps/100%f desk%.AppImage'],
    ['a double quote', '/home/ana/My "Desk" Apps/desk.AppImage'],
    ['a backslash', '/home/ana/My Apps\\desk.AppImage'],
    ['a dollar sign', '/home/ana/My Apps/$HOME desk.AppImage'],
    ['a backtick', '/home/ana/My Apps/`id` desk.AppImage'],
    ['a leading space and all of them', ' /opt/My Apps/a\\"b`$c%d\ne.AppImage'],
  ])('runs the very path with %s, and adds no key', (_, executable) => {
    enable(executable);
    const groups = readKeyFile(readFileSync(entryFile(), 'utf8'));
    expect([...groups.keys()]).toEqual(['Desktop Entry']);
    const entry = groups.get('Desktop Entry')!;
    expect(entry.map(([key]) => key)).toEqual([
      'Type',
      'Name',
      'Exec',
      'Terminal',
      'X-GNOME-Autostart-enabled',
    ]);
    expect(Object.fromEntries(entry)).toMatchObject({ Type: 'Application', Name: 'Signing Batch Desk' });
    const exec = entry.find(([key]) => key === 'Exec')![1];
    // A `%` in the path: GLib looks for the program before it expands `%%`, so `env` runs it.
    const program = executable.includes('%') ? ['/usr/bin/env'] : [];
    expect(execArguments(exec)).toEqual([...program, executable, '--hidden']);
    // The program GLib looks for is written as it is on disk.
    expect(exec.startsWith(program.length > 0 ? '/usr/bin/env ' : '"')).toBe(true);
  });

  it('keeps a product name with a line break and a backslash in its one Name key', () => {
    enable('/opt/desk/desk', 'Desk\nExec=evil \\ co');
    const entry = readKeyFile(readFileSync(entryFile(), 'utf8')).get('Desktop Entry')!;
    expect(entry.filter(([key]) => key === 'Exec')).toEqual([['Exec', '"/opt/desk/desk" --hidden']]);
    expect(Object.fromEntries(entry).Name).toBe('Desk\nExec=evil \\ co');
  });

  it('refuses, saying why, a path with a control character no desktop entry can hold', () => {
    expect(() => enable('/home/ana/My Apps/desk\u001b[0m.AppImage')).toThrow(
      /Start at login cannot be set up: the app's path contains a control character/,
    );
    expect(existsSync(entryFile())).toBe(false);
  });
});
