import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WorkflowsPathNotFoundError } from './errors.js';

/**
 * Resolves the worker's `workflowsPath` next to this module: `../workflows/index.ts` when running from
 * source (tsx, vitest), `../workflows/index.js` when compiled. The SDK bundles either.
 *
 * @param moduleUrl - `import.meta.url` of the caller's directory anchor (defaults to this file).
 * @throws WorkflowsPathNotFoundError when neither file exists.
 */
export function resolveWorkflowsPath(moduleUrl: string = import.meta.url): string {
  const preferred = moduleUrl.endsWith('.ts') ? ['index.ts', 'index.js'] : ['index.js', 'index.ts'];
  const candidates = preferred.map((file) => fileURLToPath(new URL(`../workflows/${file}`, moduleUrl)));
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new WorkflowsPathNotFoundError(candidates);
  return found;
}
