import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** What a child benchmark process handed back, and what it wrote to stderr (warnings). */
export interface ChildOutcome<R> {
  readonly result: R;
  readonly stderr: string;
}

const BENCH_DIR = fileURLToPath(new URL('..', import.meta.url));
const PROJECT_PACKAGE = fileURLToPath(new URL('../../package.json', import.meta.url));

/**
 * A native module (the data folder lock's) cannot be bundled, since it finds its binary next to
 * its own files: the bundle requires it from the project's node_modules instead.
 */
const nativeModulesFromProject: Plugin = {
  name: 'native-modules-from-project',
  setup(bundler) {
    // The module's import becomes a require() of it, left to Node (external).
    bundler.onResolve({ filter: /^fs-native-extensions$/ }, ({ path, namespace }) =>
      namespace === 'native' ? { path, external: true } : { path, namespace: 'native' },
    );
    bundler.onLoad({ filter: /.*/, namespace: 'native' }, ({ path }) => ({
      contents: `module.exports = require(${JSON.stringify(path)});`,
      loader: 'js',
    }));
  },
};

/**
 * Bundles a child entry (a file under bench/) with esbuild into `outDir`, so the child runs
 * on plain Node: no TypeScript loader thread or transpiler in the process being measured.
 */
export async function bundleChild(entry: string, outDir: string): Promise<string> {
  const outfile = join(outDir, `${entry.replace(/[^a-z0-9-]/gi, '-')}.mjs`);
  await build({
    entryPoints: [join(BENCH_DIR, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    logLevel: 'error',
    plugins: [nativeModulesFromProject],
    // Bundled CommonJS dependencies (undici) call require() for Node built-ins; it resolves from
    // the project, for the native modules above.
    banner: {
      js: `import { createRequire } from 'node:module'; const require = createRequire(${JSON.stringify(PROJECT_PACKAGE)});`,
    },
  });
  return outfile;
}

/**
 * Runs a bundled child with `job` as its only argument (JSON) and resolves with the one
 * message it sends back over IPC. Rejects when it exits without one.
 */
export function runChild<J, R>(
  bundle: string,
  job: J,
  nodeFlags: readonly string[] = [],
): Promise<ChildOutcome<R>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, bundle, JSON.stringify(job)], {
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    let stderr = '';
    let result: { value: R } | undefined;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      stderr += text;
    });
    child.on('message', (message) => {
      result = { value: message as R };
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (result) resolve({ result: result.value, stderr });
      else reject(new Error(`benchmark child exited (${signal ?? code}) without a result:\n${stderr}`));
    });
  });
}
