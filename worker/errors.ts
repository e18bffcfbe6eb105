/** Thrown by `runWorker` when the workflow code (`../workflows/index.{ts,js}`) cannot be found next to it. */
export class WorkflowsPathNotFoundError extends Error {
  override readonly name = 'WorkflowsPathNotFoundError';
  constructor(readonly searched: string[]) {
    super(`workflow code not found; looked for ${searched.join(', ')}`);
  }
}
