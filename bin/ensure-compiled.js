// Keeps dist/ (the compiled CLI) in step with the TypeScript sources (architecture.md §10, ADR 0017):
// `wa-lake` runs compiled JavaScript, and never code older than its sources. Plain JavaScript: it runs before
// anything can compile TypeScript. Used by bin/wa-lake.js, scripts/prepare-dist.mjs (npm's `prepare`, so
// `npm ci` builds) and the integration tests' global setup.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHECKOUT = fileURLToPath(new URL('..', import.meta.url));
const LOCK_WAIT_MS = 10 * 60_000;

/** The paths of a checkout; `stamp` is written last by the build: its time is the build's, and without it the build is unfinished. */
function layoutOf(root) {
  const dist = join(root, 'dist');
  return {
    root,
    dist,
    stamp: join(dist, 'cli', 'command-index.json'),
    buildConfig: join(root, 'tsconfig.build.json'),
    lockDir: join(root, '.dist-build.lock'),
  };
}

/** Sources and settings the build reads: each dist/X.js comes from X.ts, plus the two tsconfig files. */
function* buildInputs(layout, dir = layout.dist) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* buildInputs(layout, path);
    else if (entry.name.endsWith('.js')) yield join(layout.root, relative(layout.dist, path)).replace(/\.js$/, '.ts');
  }
  yield layout.buildConfig;
  yield join(layout.root, 'tsconfig.json');
}

/**
 * The first source newer than the last build (relative path), `'no build'` when there is none, or null when dist/
 * is current. `root`: the checkout (default: this one).
 */
export function findStaleSource(root = CHECKOUT) {
  const layout = layoutOf(root);
  if (!existsSync(layout.stamp)) return 'no build';
  const builtAtMs = statSync(layout.stamp).mtimeMs;
  for (const input of buildInputs(layout)) {
    const stat = statSync(input, { throwIfNoEntry: false });
    if (stat !== undefined && stat.mtimeMs > builtAtMs) return relative(root, input);
  }
  return null;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** The pid in the lock, or null while it is being written (or just removed). */
function readLockOwner(lockDir) {
  try {
    const pid = Number(readFileSync(join(lockDir, 'pid'), 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** One build at a time (parallel test workers, two terminals): a directory made exclusively, with its pid. */
function acquireBuildLock(lockDir) {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      return () => rmSync(lockDir, { recursive: true, force: true });
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      const owner = readLockOwner(lockDir);
      if (owner !== null && !isAlive(owner)) rmSync(lockDir, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`another build holds ${lockDir} for too long; remove it`);
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
}

/** The steps of `npm run build` after tsc, in order; the last writes the stamp. */
const STEPS_AFTER_TSC = ['write-workflow-bundle.mjs', 'write-command-index.mjs'];

/** Runs `npm run build`'s steps; returns tsc's diagnostics when the sources do not compile (or a step's output). */
function build(layout) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  rmSync(layout.stamp, { force: true });
  const compiled = spawnSync(process.execPath, [tsc, '-p', layout.buildConfig], { cwd: layout.root, encoding: 'utf8' });
  if (compiled.status !== 0) return `${compiled.stdout}${compiled.stderr}`.trim() || `tsc exited ${compiled.status}`;
  for (const step of STEPS_AFTER_TSC) {
    const run = spawnSync(process.execPath, [join(layout.root, 'scripts', step)], {
      cwd: layout.root,
      encoding: 'utf8',
    });
    if (run.status !== 0) return `${run.stdout}${run.stderr}`.trim() || `${step} exited ${run.status}`;
  }
  return null;
}

/**
 * Builds dist/ when a source is newer than it. Returns `'current'`, `'built'`, or `'no-sources'` (an installed
 * image: dist/ only, nothing to compare). `onBuild(reason)` is told before a build starts; `root` is the checkout
 * (default: this one), whose `scripts/write-command-index.mjs` writes the stamp.
 * @throws Error with tsc's diagnostics when the sources do not compile (dist/ is then left unfinished).
 */
export function ensureCompiled(onBuild = () => {}, root = CHECKOUT) {
  const layout = layoutOf(root);
  if (!existsSync(layout.buildConfig)) return 'no-sources';
  if (findStaleSource(root) === null) return 'current';
  const release = acquireBuildLock(layout.lockDir);
  try {
    const stale = findStaleSource(root);
    if (stale === null) return 'current';
    onBuild(stale);
    const failure = build(layout);
    if (failure !== null) throw new Error(`the sources do not compile (npm run build):\n${failure}`);
    return 'built';
  } finally {
    release();
  }
}
