/**
 * Errors of the collector core (house style §4): small named classes with a stable `name`, data
 * fields and the original error in `cause`.
 */

/**
 * Thrown by normalization when one item holds a value that cannot become JSON (a circular
 * reference, a non-finite number, an invalid date, nesting deeper than the limit). The pipeline
 * catches it and quarantines that one item as `dead` (DESIGN §4), never the batch.
 */
export class UnserializableValueError extends Error {
  override readonly name = 'UnserializableValueError';
  constructor(
    /** Dotted path of the offending value inside the item, e.g. `message.imageMessage.fileLength`. */
    readonly path: string,
    /** Short reason, e.g. `circular reference`. */
    readonly reason: string,
    options?: { cause?: unknown }
  ) {
    super(`cannot serialize value at ${path || '(root)'}: ${reason}`, options);
  }
}

/**
 * Thrown by `OutboxStore.open` when the SQLite file cannot be opened or its schema created
 * (DESIGN §5). `cause` holds the `SqliteError`.
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
