/**
 * What the bundled bad-input child (case-child.ts) gets for `vitest`: the desk service harness
 * imports `expect` for a helper the child never calls, and loading vitest in each of ~100
 * children would cost more than the case itself. Fails loudly if anything does call it.
 */
export function expect(): never {
  throw new Error('vitest is not loaded in the bad-input child: its checks run in the parent');
}
