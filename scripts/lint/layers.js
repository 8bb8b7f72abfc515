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
import { fileURLToPath } from 'node:url';

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

/** The repository's root: paths are measured from here, whatever folder ESLint runs in. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * What main/ and shared/ may import from the repository's other trees. `shared/` is below every
 * folder of `main/`; the simulator is the demo connection, started by the app layer only; the
 * app's name and version come from package.json; tests,
 * benchmarks, scripts, pages and the preload are never imported by product code.
 * @type {Readonly<Record<string, Readonly<Record<string, (from: { folder: string }) => boolean>>>>}
 */
const OTHER_TREES = {
  main: {
    shared: () => true,
    simulator: (from) => from.folder === 'app',
    'package.json': () => true,
    node_modules: () => true,
  },
  shared: { node_modules: () => true },
};

/**
 * Where a repository-relative path sits: its tree (main, shared), its folder and the layer's
 * rank; undefined outside the layered trees. The tree's root itself, a file directly in it, or a
 * folder the table does not name gets rank -1 (reported).
 * @param {string} relativePath
 */
export function layerOf(relativePath) {
  const [tree, folder, ...rest] = relativePath.split(/[\\/]/);
  if (tree === undefined || !(tree in LAYERS)) return undefined;
  if (folder === undefined || folder === '' || rest.length === 0) return { tree, folder: '', rank: -1 };
  const layers = LAYERS[tree] ?? [];
  const rank = layers.findIndex((layer) => layer.includes(folder));
  return { tree, folder, rank };
}

/** A module path the code names, when it can be known without running it. */
const UNKNOWN = Symbol('unknown');

/** @type {import('eslint').Rule.RuleModule} */
const orderedLayers = {
  meta: {
    type: 'problem',
    docs: { description: 'main/ and shared/ folders import only lower layers (scripts/lint/layers.js)' },
    schema: [],
  },
  create(context) {
    const file = path.relative(ROOT, context.filename);
    const from = layerOf(file);
    if (from === undefined) return {};

    /**
     * The string a module expression stands for: a literal, a template without substitutions, or
     * a `const` of this file holding one; UNKNOWN otherwise (a path built at run time).
     * @param {any} node
     * @param {any} expression
     * @returns {string | typeof UNKNOWN}
     */
    const constantValue = (node, expression) => {
      if (expression?.type === 'Literal' && typeof expression.value === 'string') return expression.value;
      if (expression?.type === 'TemplateLiteral' && expression.expressions.length === 0)
        return expression.quasis[0]?.value.cooked ?? UNKNOWN;
      if (expression?.type === 'Identifier') {
        for (let scope = context.sourceCode.getScope(node); scope; scope = scope.upper) {
          const variable = scope.set.get(expression.name);
          if (!variable) continue;
          const definition = variable.defs[0];
          return definition?.type === 'Variable' && definition.parent.kind === 'const' && definition.node.init
            ? constantValue(node, definition.node.init)
            : UNKNOWN;
        }
      }
      return UNKNOWN;
    };

    /** @param {any} node @param {string | typeof UNKNOWN} specifier */
    const check = (node, specifier) => {
      if (specifier === UNKNOWN) {
        context.report({
          node,
          message: `${file}: a module path built at run time cannot be checked against the layers; name the module.`,
        });
        return;
      }
      const relative = specifier.startsWith('.') || path.isAbsolute(specifier);
      if (!relative) return; // a package
      const target = path.relative(ROOT, path.resolve(path.dirname(context.filename), specifier));
      const to = layerOf(target);
      if (to === undefined) {
        const tree = target.split(/[\\/]/)[0] ?? '';
        const allowed = OTHER_TREES[from.tree]?.[tree];
        if (allowed?.(from)) return;
        context.report({
          node,
          message: `${from.tree}/${from.folder || '(root)'} may not import ${tree.startsWith('..') ? 'outside the repository' : `${tree}/`} (scripts/lint/layers.js).`,
        });
        return;
      }
      if (to.tree !== from.tree) {
        if (OTHER_TREES[from.tree]?.[to.tree]?.(from)) return;
        context.report({
          node,
          message: `${from.tree}/ may not import ${to.tree}/: it is below it (scripts/lint/layers.js).`,
        });
        return;
      }
      if (to.folder === from.folder && to.rank !== -1) return;
      if (to.rank >= 0 && to.rank < from.rank) return;
      context.report({
        node,
        message:
          `${from.tree}/${from.folder} may not import ${to.tree}/${to.folder || '(root)'}: ` +
          `a folder imports only lower layers (${picture(from.tree)}; scripts/lint/layers.js).`,
      });
    };

    return {
      Program(node) {
        if (from.rank === -1)
          context.report({
            node,
            message: `${file} is outside every layer of ${from.tree}/: put it in a folder of ${picture(from.tree)}.`,
          });
      },
      ImportDeclaration: (node) => check(node, constantValue(node, node.source)),
      ExportNamedDeclaration: (node) => node.source && check(node, constantValue(node, node.source)),
      ExportAllDeclaration: (node) => check(node, constantValue(node, node.source)),
      ImportExpression: (node) => check(node, constantValue(node, node.source)),
      /** @param {any} node `require('…')` */
      CallExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments.length > 0)
          check(node, constantValue(node, node.arguments[0]));
      },
      /** @param {any} node `import x = require('…')` */
      TSImportEqualsDeclaration(node) {
        if (node.moduleReference.type === 'TSExternalModuleReference')
          check(node, constantValue(node, node.moduleReference.expression));
      },
      /** @param {any} node `import('…').Type` in a type */
      TSImportType(node) {
        const argument = node.source ?? node.argument; // `source` in typescript-eslint 8.x, `argument` before
        const literal = argument?.type === 'TSLiteralType' ? argument.literal : argument;
        check(node, constantValue(node, literal));
      },
      /** @param {any} node `declare module '…'` (an augmentation reaches into that module) */
      TSModuleDeclaration(node) {
        if (node.id.type === 'Literal') check(node, constantValue(node, node.id));
      },
    };
  },
};

export const layersPlugin = { rules: { ordered: orderedLayers } };
