import type pg from 'pg';
import { applyIdentityStatements } from './apply-identities.js';
import { insertEventLogRecords } from './event-log-rows.js';
import type { MessageProjectionItem } from './message-projection-item.js';
import type { EncodedMessageFacts } from './messages-repository.js';
import { recordProjectionError } from './projection-errors.js';

/**
 * Projects the events of one batch statement (ADR 0006) inside the caller's
 * transaction, under `SAVEPOINT message_projections`: set-based steps over all items at once, one per
 * field of `MessageFacts` (identities today; a new per-message read model adds its step here). When a
 * step fails, the savepoint is rolled back and each item is retried alone in its own savepoint, so
 * only the events that cannot be projected get a `whatsapp_projection_errors` row; the raw rows commit.
 *
 * @returns the event ids whose projection failed (and was recorded).
 * @throws the rollback's error when even a savepoint cannot be rolled back (connection lost).
 */
export async function applyMessageProjections(
  client: pg.ClientBase,
  items: readonly MessageProjectionItem[]
): Promise<string[]> {
  if (items.length === 0) return [];
  const batchError = await trySavepoint(client, items);
  if (batchError === null) return [];
  const failed: string[] = [];
  for (const item of items) {
    // One item alone needs no second try: the batch error is its own.
    const error = items.length === 1 ? batchError : await trySavepoint(client, [item]);
    if (error === null) continue;
    await recordProjectionError(client, item, error);
    failed.push(item.eventId);
  }
  return failed;
}

async function runSteps(client: pg.ClientBase, items: readonly MessageProjectionItem[]): Promise<void> {
  await applyIdentityStatements(
    client,
    items.map((item) => ({ at: item.effectiveAt, refs: item.facts.identities }))
  );
}

/** Runs the steps in a savepoint; @returns null on success, the error (rolled back) otherwise. */
async function trySavepoint(client: pg.ClientBase, items: readonly MessageProjectionItem[]): Promise<Error | null> {
  await client.query('SAVEPOINT message_projections');
  try {
    await runSteps(client, items);
    await client.query('RELEASE SAVEPOINT message_projections');
    return null;
  } catch (err) {
    await client.query('ROLLBACK TO SAVEPOINT message_projections');
    return err instanceof Error ? err : new Error(String(err));
  }
}

/**
 * The batch statement of rows that have message projections (ADR 0006): `BEGIN`,
 * the one raw-row INSERT, {@link applyMessageProjections} for the rows inserted now, `COMMIT`, on one
 * client released in `finally` (a failed one destroyed, never returned mid-transaction).
 *
 * @param recordJsons - rows encoded by `encodeEventLogRow`, sorted by event_id.
 * @returns the event ids inserted now, and those whose projection failed (recorded).
 * @throws pg.DatabaseError or a connection error as `pg` reports it (the transaction is rolled back).
 */
export async function insertWithMessageProjections(
  pool: pg.Pool,
  recordJsons: readonly string[],
  items: readonly MessageProjectionItem[],
  readModel: EncodedMessageFacts | null = null,
  observeGeneration: (generation: number) => void = () => undefined
): Promise<{ inserted: Set<string>; failed: Set<string> }> {
  const client = await pool.connect();
  let releaseError: Error | undefined;
  try {
    await client.query('BEGIN');
    const inserted = await insertEventLogRecords(client, recordJsons, readModel, [], observeGeneration);
    const failed = await applyMessageProjections(
      client,
      items.filter((item) => inserted.has(item.eventId))
    );
    await client.query('COMMIT');
    return { inserted, failed: new Set(failed) };
  } catch (err) {
    releaseError = err instanceof Error ? err : new Error('non-error thrown');
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release(releaseError);
  }
}
