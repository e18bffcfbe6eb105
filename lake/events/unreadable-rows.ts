import pg from 'pg';

/**
 * SQLSTATEs of a row PostgreSQL cannot render or hold in memory (ADR 0014):
 * out_of_memory, program_limit_exceeded, statement_too_complex, and internal_error (which
 * "invalid memory alloc request size" raises past 1 GB). Only these make maintenance skip a row.
 */
const UNRENDERABLE_SQLSTATES = new Set(['53200', '54000', '54001', 'XX000']);

/** True when `err` says a value was too large to render (see {@link UNRENDERABLE_SQLSTATES}). */
export function isUnrenderableRowError(err: unknown): boolean {
  return err instanceof pg.DatabaseError && UNRENDERABLE_SQLSTATES.has(err.code ?? '');
}

/** A raw row maintenance skipped because PostgreSQL could not render it; named, never its content. */
export interface SkippedRow {
  /** `whatsapp_event_logs.event_id`. */
  eventId: string;
  /** The SQLSTATE that stopped it. */
  sqlState: string;
}

let savepointCounter = 0;
/** SQLSTATE `no_active_sql_transaction`: SAVEPOINT outside a transaction block. */
const NO_ACTIVE_TRANSACTION = '25P01';

async function inOwnTransaction<T>(client: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
}

/**
 * Runs `work` inside a savepoint of the caller's transaction: on error the savepoint is rolled back (the
 * transaction stays usable) and the error rethrown.
 */
export async function inSavepoint<T>(client: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  savepointCounter += 1;
  const name = `wa_row_guard_${savepointCounter}`;
  try {
    await client.query(`SAVEPOINT ${name}`);
  } catch (err) {
    // A caller outside a transaction: the work gets a transaction of its own, with the same all-or-nothing.
    if ((err as { code?: string }).code !== NO_ACTIVE_TRANSACTION) throw err;
    return inOwnTransaction(client, work);
  }
  try {
    const result = await work();
    await client.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (err) {
    await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
    throw err;
  }
}

/**
 * Runs `work` over a chunk of rows in a savepoint; when PostgreSQL cannot render one of them, runs it
 * again row by row (each in its own savepoint) and reports every row that still fails through `onSkipped`
 * instead of failing the whole command. A chunk of one row is not tried again: it is that row (each try of an
 * unrenderable row makes PostgreSQL build up to 1 GB of text before it refuses).
 *
 * @param ids - the chunk's `whatsapp_event_logs.id`s, with their `event_id`s (to name a skipped row).
 * @param work - the statement(s) for a set of ids; its results are concatenated.
 */
export async function runChunkSkippingUnrenderable<T>(
  client: pg.ClientBase,
  ids: ReadonlyArray<{ id: string; eventId: string }>,
  work: (ids: string[]) => Promise<T[]>,
  onSkipped: (row: SkippedRow) => void
): Promise<T[]> {
  try {
    return await inSavepoint(client, () => work(ids.map((row) => row.id)));
  } catch (err) {
    if (!isUnrenderableRowError(err)) throw err;
    const [only] = ids;
    if (ids.length === 1 && only) {
      onSkipped({ eventId: only.eventId, sqlState: (err as pg.DatabaseError).code ?? '' });
      return [];
    }
  }
  const results: T[] = [];
  for (const row of ids) {
    try {
      results.push(...(await inSavepoint(client, () => work([row.id]))));
    } catch (err) {
      if (!isUnrenderableRowError(err)) throw err;
      onSkipped({ eventId: row.eventId, sqlState: (err as pg.DatabaseError).code ?? '' });
    }
  }
  return results;
}
