import { describe, expect, it } from 'vitest';
import { WorkflowsPathNotFoundError } from '../../../worker/errors.js';
import { resolveWorkflowsPath } from '../../../worker/workflows-path.js';

describe('resolveWorkflowsPath', () => {
  it('resolves the TypeScript workflows index next to a source module', () => {
    expect(resolveWorkflowsPath(new URL('../../../worker/run-worker.ts', import.meta.url).href)).toMatch(
      /workflows\/index\.ts$/
    );
  });

  it('falls back to the file that exists when compiled output is absent', () => {
    expect(resolveWorkflowsPath(new URL('../../../worker/run-worker.js', import.meta.url).href)).toMatch(
      /workflows\/index\.(js|ts)$/
    );
  });

  it('names every searched path when no workflows index exists', () => {
    expect(() => resolveWorkflowsPath('file:///nowhere/worker/run-worker.js')).toThrow(WorkflowsPathNotFoundError);
  });
});
