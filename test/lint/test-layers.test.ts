/**
 * Every test file belongs to exactly one layer of vitest.config.ts (unit, integration, system,
 * browser): a file in none would never run, a file in two would run twice.
 */
import { globSync } from 'node:fs';
import { matchesGlob } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config';

interface Layer {
  readonly name: string;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
}

const layers: Layer[] = (config.test?.projects ?? []).map((project) => {
  const test = (project as { test: { name: string; include: string[]; exclude: string[] } }).test;
  return { name: test.name, include: test.include, exclude: test.exclude };
});

const matches = (file: string, patterns: readonly string[]) =>
  patterns.some((pattern) => matchesGlob(file, pattern));

describe('the layers of tests', () => {
  it('are unit, integration, system and browser', () => {
    expect(layers.map((layer) => layer.name)).toEqual(['unit', 'integration', 'system', 'browser']);
  });

  it('hold every test file exactly once', () => {
    const files = globSync('test/**/*.test.{ts,tsx}').sort();
    expect(files.length).toBeGreaterThan(100);
    const misplaced = files.flatMap((file) => {
      const homes = layers.filter((layer) => matches(file, layer.include) && !matches(file, layer.exclude));
      return homes.length === 1
        ? []
        : [`${file}: ${homes.map((layer) => layer.name).join(', ') || 'no layer'}`];
    });
    expect(misplaced).toEqual([]);
  });
});
