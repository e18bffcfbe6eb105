/** Thrown by `replayDeadLetters` when a workflow's history has no completed workflow task to reset to. */
export class ResetPointNotFoundError extends Error {
  override readonly name = 'ResetPointNotFoundError';
  constructor(readonly workflowId: string) {
    super(`workflow ${workflowId} has no completed workflow task to reset to`);
  }
}
