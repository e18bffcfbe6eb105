import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Files `npm run build` writes next to the compiled `workflows/index.js` (`scripts/write-workflow-bundle.mjs`): the
 * workflow code bundled once, as Temporal's production sample does, instead of by webpack at every worker start.
 */
export const PREBUILT_WORKFLOW_BUNDLE_FILES = {
  /** For a worker without `PAYLOAD_ENCRYPTION_KEYS`: the SDK's default failure converter. */
  plain: 'bundle.js',
  /** For a worker with keys: built with `workflows/failure-converter.cjs` (architecture.md §14, ADR 0022). */
  encodedFailures: 'bundle-encoded-failures.js',
  /** Written last: `{ "sdkVersion": "<@temporalio/workflow version the bundles hold>" }`. */
  manifest: 'bundle.json',
} as const;

/** The version of `@temporalio/workflow` installed beside this module (what a bundle built now would hold). */
export function installedWorkflowSdkVersion(): string {
  const manifest = createRequire(import.meta.url)('@temporalio/workflow/package.json') as { version: string };
  return manifest.version;
}

function readManifestSdkVersion(path: string): string | null {
  try {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as { sdkVersion?: unknown };
    return typeof manifest.sdkVersion === 'string' ? manifest.sdkVersion : null;
  } catch {
    return null;
  }
}

/** Latest modification time (ms) of the workflow modules (`extension`) in `dir` (a flat folder), bundles left out. */
function newestWorkflowModuleMs(dir: string, extension: '.js' | '.ts'): number {
  const bundles = new Set<string>(Object.values(PREBUILT_WORKFLOW_BUNDLE_FILES));
  let newest = 0;
  for (const name of readdirSync(dir)) {
    if (bundles.has(name) || !name.endsWith(extension)) continue;
    newest = Math.max(newest, statSync(join(dir, name)).mtimeMs);
  }
  return newest;
}

/**
 * The prebuilt bundle a worker can load instead of bundling `workflowsPath` at start: the one next to the compiled
 * workflows (`dist/workflows/`; for `workflows/index.ts` under tsx or vitest, the checkout's `dist/workflows/`),
 * only when the build that wrote it used the `@temporalio/workflow` installed now, and only when no workflow module
 * the worker would bundle (compiled, or the sources under tsx) nor the failure converter is newer than it.
 * Otherwise null, and the worker bundles at start as before.
 *
 * @param workflowsPath - the worker's `workflowsPath` (`resolveWorkflowsPath()`).
 * @param failureConverterPath - the data converter's `failureConverterPath`, when the worker has one.
 * @returns the SDK's `workflowBundle` option (`{ codePath }`), or null.
 */
export function findPrebuiltWorkflowBundle(
  workflowsPath: string,
  failureConverterPath: string | undefined
): { codePath: string } | null {
  const extension = workflowsPath.endsWith('.ts') ? '.ts' : '.js';
  const modulesDir = dirname(workflowsPath);
  const dir = extension === '.ts' ? join(modulesDir, '..', 'dist', 'workflows') : modulesDir;
  const files = PREBUILT_WORKFLOW_BUNDLE_FILES;
  const codePath = join(dir, failureConverterPath === undefined ? files.plain : files.encodedFailures);
  if (readManifestSdkVersion(join(dir, files.manifest)) !== installedWorkflowSdkVersion()) return null;
  try {
    const builtAtMs = statSync(codePath).mtimeMs;
    const inputsMs = Math.max(
      newestWorkflowModuleMs(modulesDir, extension),
      failureConverterPath === undefined ? 0 : statSync(failureConverterPath).mtimeMs
    );
    return inputsMs <= builtAtMs ? { codePath } : null;
  } catch {
    return null;
  }
}
