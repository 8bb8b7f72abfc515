// @ts-check
/**
 * The layers of main/ and shared/, lowest first, and the ESLint rule that keeps them: a file may
 * import its own folder and the folders of lower layers only. Folders of one layer are siblings
 * and do not import each other either, so no two folders ever import each other. Type-only
 * imports count too: a type is a dependency a reader has to follow.
 *
 * ARCHITECTURE.md draws the same table; this file is the one place the rule lives.
 */
import path from 'node:path';

/** @type {Readonly<Record<string, readonly (readonly string[])[]>>} */
export const LAYERS = {
  main: [
    ['time', 'base'],
    ['domain'],
    ['files'],
    ['store'],
    ['client'],
    ['credentials'],
    ['manifest'],
    ['engine', 'tracking', 'report'],
    ['app'],
    ['shell', 'browser-host', 'cli'],
  ],
  shared: [['base'], ['i18n'], ['service'], ['domain'], ['ipc']],
};

/** A short picture of one tree's layers, for the rule's message. */
function picture(/** @type {string} */ tree) {
  return (LAYERS[tree] ?? []).map((layer) => layer.join(' | ')).join(' < ');
}

/**
 * Where a repository-relative path sits: its tree (main, shared), its folder and the layer's
 * rank; undefined outside the layered trees. A file directly in main/ or shared/, or in a folder
 * the table does not name, gets rank -1 (reported).
 * @param {string} relativePath
 */
export function layerOf(relativePath) {
  const [tree, folder, ...rest] = relativePath.split(/[\\/]/);
  if (tree === undefined || folder === undefined || !(tree in LAYERS)) return undefined;
  const layers = LAYERS[tree] ?? [];
  if (rest.length === 0) return { tree, folder: '', rank: -1 };
  const rank = layers.findIndex((layer) => layer.includes(folder));
  return { tree, folder, rank };
}

/** @type {import('eslint').Rule.RuleModule} */
const orderedLayers = {
  meta: {
    type: 'problem',
    docs: { description: 'main/ and shared/ folders import only lower layers (scripts/lint/layers.js)' },
    schema: [],
  },
  create(context) {
    const root = context.cwd;
    const file = path.relative(root, context.filename);
    const from = layerOf(file);
    if (from === undefined) return {};
    /** @param {import('estree').Node} node */
    const check = (node, /** @type {unknown} */ specifier) => {
      if (from.rank === -1) {
        context.report({
          node,
          message: `${file} is outside every layer of ${from.tree}/: put it in a folder of ${picture(from.tree)}.`,
        });
        return;
      }
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = path.relative(root, path.resolve(path.dirname(context.filename), specifier));
      const to = layerOf(target);
      if (to === undefined || to.tree !== from.tree || to.folder === from.folder) return;
      if (to.rank >= 0 && to.rank < from.rank) return;
      context.report({
        node,
        message:
          `${from.tree}/${from.folder} may not import ${to.tree}/${to.folder || '(root)'}: ` +
          `a folder imports only lower layers (${picture(from.tree)}; scripts/lint/layers.js).`,
      });
    };
    let reportedRoot = false;
    return {
      Program(node) {
        if (from.rank === -1 && !reportedRoot) {
          reportedRoot = true;
          check(node, undefined);
        }
      },
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

export const layersPlugin = { rules: { ordered: orderedLayers } };
