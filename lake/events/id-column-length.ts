/**
 * Longest id the lake's key columns hold (`varchar(255)`: participants, message ids, chat JIDs of the read model).
 * A projection leaves out a fact whose id is longer rather than let PostgreSQL refuse the raw row it rides with
 * (architecture.md §8: a projection never stops the raw row from being stored).
 */
export const MAX_ID_LENGTH = 255;

/** True when `id` is null or fits an id column ({@link MAX_ID_LENGTH} characters). */
export function fitsIdColumn(id: string | null): boolean {
  return id === null || id.length <= MAX_ID_LENGTH;
}
