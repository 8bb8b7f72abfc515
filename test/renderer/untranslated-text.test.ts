/**
 * Every word a person reads in the renderer comes from the catalogs (shared/i18n/catalog), so
 * it exists in English, French and German. This fails on English left in a .tsx file: JSX
 * text, a string or template literal shown as a child, or one given to an attribute a person
 * reads or hears (aria-label, title, placeholder, alt, label) — names, marks and punctuation
 * ("×", ":", "—") are not words.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../shared/i18n/catalog';

const ROOT = join(import.meta.dirname, '..', '..');
const RENDERER = join(ROOT, 'renderer');

/** Attributes whose value a person reads or hears. */
const READ_ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'alt', 'label', 'aria-description']);

/** A word: two letters in a row (so "×", "—", "…" or ": " are not). */
const WORD = /\p{L}{2}/u;

/**
 * Texts that read the same in every language: a catalog message id handed to a component that
 * translates it, an example address, and names of standards ("SHA-256").
 */
function sameInEveryLanguage(text: string): boolean {
  const trimmed = text.trim().replace(/^[·\s]+/, '');
  return trimmed in MESSAGES.en || /^https?:\/\/\S+$/.test(trimmed) || /^SHA-256$/.test(trimmed);
}

function tsxFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return tsxFiles(path);
    return entry.name.endsWith('.tsx') ? [path] : [];
  });
}

/** The untranslated texts of one file, each with its line. */
function untranslatedTexts(source: string, fileName = 'file.tsx'): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const report = (node: ts.Node, text: string) => {
    if (!WORD.test(text) || sameInEveryLanguage(text)) return;
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    found.push(`line ${line + 1}: ${text.trim().replace(/\s+/g, ' ')}`);
  };
  /** A literal (or a literal inside `a ? b : c` / `a && b`) shown as it is. */
  const literalTexts = (expression: ts.Expression | undefined, at: ts.Node) => {
    if (!expression) return;
    if (ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression))
      report(at, expression.text);
    else if (ts.isTemplateExpression(expression)) {
      report(
        at,
        [expression.head.text, ...expression.templateSpans.map((span) => span.literal.text)].join(' '),
      );
    } else if (ts.isConditionalExpression(expression)) {
      literalTexts(expression.whenTrue, at);
      literalTexts(expression.whenFalse, at);
    } else if (
      ts.isBinaryExpression(expression) &&
      expression.operatorToken.kind !== ts.SyntaxKind.PlusToken
    ) {
      literalTexts(expression.right, at);
    } else if (ts.isParenthesizedExpression(expression)) literalTexts(expression.expression, at);
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) report(node, node.text);
    else if (ts.isJsxExpression(node) && ts.isJsxElement(node.parent)) literalTexts(node.expression, node);
    else if (ts.isJsxAttribute(node) && READ_ATTRIBUTES.has(node.name.getText(file))) {
      const value = node.initializer;
      if (value && ts.isStringLiteral(value)) report(node, value.text);
      else if (value && ts.isJsxExpression(value)) literalTexts(value.expression, node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('the renderer speaks from the catalogs', () => {
  it('finds English left in JSX text, shown literals and read attributes (the check itself)', () => {
    expect(
      untranslatedTexts(
        [
          'const a = <p>Nothing was sent</p>;',
          'const b = <input placeholder="e.g. fr-FR" />;',
          'const c = <button aria-label={open ? "Close" : "Open"}>×</button>;',
          "const d = <p>{busy ? `Checking ${id}…` : ''}</p>;",
          "const e = <p>{t('batches.empty')} — <span>{name}</span>: {count}</p>;",
          'const f = <div className="row" data-testid="batch-row" />;',
        ].join('\n'),
      ),
    ).toEqual([
      'line 1: Nothing was sent',
      'line 2: e.g. fr-FR',
      'line 3: Close',
      'line 3: Open',
      'line 4: Checking …',
    ]);
  });

  const files = tsxFiles(RENDERER).map((path) => relative(ROOT, path).split('\\').join('/'));
  for (const file of files) {
    it(`${file} has no untranslated text`, () => {
      expect(untranslatedTexts(readFileSync(join(ROOT, file), 'utf8'), file)).toEqual([]);
    });
  }
});
