/**
 * Thrown by `rebuildProjections` when the rebuild cannot complete; the transaction was rolled back and
 * the previous projections are untouched. `cause` holds the pg error.
 */
export class RebuildFailedError extends Error {
  override readonly name = 'RebuildFailedError';
  constructor(
    readonly eventsApplied: number,
    cause: unknown
  ) {
    super(`projection rebuild failed after ${eventsApplied} events; previous projections kept`, { cause });
  }
}
