/**
 * Errors of normalization (house style §4). They live beside the code that throws them so nothing in
 * `normalize/` imports from the collector above it.
 */

/**
 * Thrown by normalization when one item holds a value that cannot become JSON (a circular
 * reference, a non-finite number, an invalid date, nesting deeper than the limit). The pipeline
 * catches it and quarantines that one item as `dead` (architecture.md §4), never the batch.
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
