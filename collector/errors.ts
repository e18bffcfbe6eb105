/**
 * Errors of the collector core (house style §4): small named classes with a stable `name`, data
 * fields and the original error in `cause`.
 */

/**
 * Thrown by `OutboxStore.open` when the SQLite file cannot be opened or its schema created
 * (architecture.md §5). `cause` holds the `SqliteError`.
 */
export class OutboxOpenError extends Error {
  override readonly name = 'OutboxOpenError';
  constructor(
    readonly path: string,
    options?: { cause?: unknown }
  ) {
    super(`cannot open outbox at ${path}`, options);
  }
}
