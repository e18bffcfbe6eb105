import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { ProgressMeter, type ProgressListener } from '../../common/progress-meter.js';
import { MESSAGE_BODY_TYPES, redactMessageBody } from '../../common/redact-message-body.js';
import { runChunkSkippingUnrenderable, type SkippedRow } from '../events/unreadable-rows.js';
import { EVENT_TIME_SQL } from '../projections/occurred-at.js';

/** Outcome of {@link redactOldMessageBodies}. */
export interface RetentionResult {
  /** Raw rows whose message content was redacted by this run. */
  redactedEvents: number;
  /** Rows PostgreSQL could not render, left as they were and named (ADR 0014). */
  skipped: SkippedRow[];
  /** Event time before which bodies are redacted (ISO-8601). */
  cutoff: string;
}

const DEFAULT_BATCH_SIZE = 500;

/**
 * Retention (architecture.md §14, ADR 0010): redacts the message content of `messages.upsert` and
 * `messages.update` rows whose event time (`EVENT_TIME_SQL`, `occurred-at.ts`: the time engagement counts by) is before `cutoff`,
 * keeping ids, times, type, group, participant and message kind (`common/redact-message-body.ts`), and
 * stamps `body_redacted_at`. Batches of `batchSize` rows, one transaction each, `FOR UPDATE SKIP LOCKED`
 * so a scheduled run and a manual one (or two ingest replicas) never wait on each other. Projections
 * read no message content, so they are untouched. Records the run in `whatsapp_retention_runs`.
 *
 * @param options.requestedBy - who ran it (`wa-lake retention apply` user, or `ingest-api schedule`).
 * @param options.onProgress - when given, the rows to redact are counted first and each batch is reported with
 *   its share done, rate and ETA (ADR 0017).
 * @throws the pg error of a failing batch (batches already committed stay redacted: a rerun continues).
 */
export async function redactOldMessageBodies(
  pool: pg.Pool,
  cutoff: Date,
  options: { requestedBy: string; batchSize?: number; onProgress?: ProgressListener }
): Promise<RetentionResult> {
  const startedAt = new Date();
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  let redactedEvents = 0;
  const skipped: SkippedRow[] = [];
  const meter = options.onProgress
    ? new ProgressMeter('message bodies', await countBodiesToRedact(pool, cutoff))
    : null;
  for (;;) {
    const batch = await redactOneBatch(pool, cutoff, batchSize, skipped);
    redactedEvents += batch.redacted;
    if (meter && batch.processed > 0) options.onProgress?.(meter.advance(batch.processed));
    if (batch.processed < batchSize) break;
  }
  await pool.query(
    `INSERT INTO whatsapp_retention_runs (id, requested_by, cutoff, started_at, finished_at, redacted_events)
     VALUES ($1, $2, $3, $4, now(), $5)`,
    [randomUUID(), options.requestedBy, cutoff, startedAt, redactedEvents]
  );
  return { redactedEvents, cutoff: cutoff.toISOString(), skipped };
}

/** Rows a run with `cutoff` has to redact, for its progress report (rows added meanwhile raise the total). */
async function countBodiesToRedact(pool: pg.Pool, cutoff: Date): Promise<number> {
  const { rows } = await pool.query<{ count: string }>(
    `SELECT count(*) FROM whatsapp_event_logs
      WHERE body_redacted_at IS NULL AND type = ANY($1::text[]) AND ${EVENT_TIME_SQL} < $2`,
    [MESSAGE_BODY_TYPES, cutoff]
  );
  return Number(rows[0]?.count ?? 0);
}

async function redactOneBatch(
  pool: pg.Pool,
  cutoff: Date,
  batchSize: number,
  skipped: SkippedRow[]
): Promise<{ processed: number; redacted: number }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Keys first (no payload rendered); rows already reported as unrenderable stay out of later batches.
    const { rows: keys } = await client.query<{ id: string; event_id: string }>(
      `SELECT id, event_id FROM whatsapp_event_logs
        WHERE body_redacted_at IS NULL AND type = ANY($1::text[]) AND ${EVENT_TIME_SQL} < $2
          AND NOT (event_id = ANY($4::uuid[]))
        ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED`,
      [MESSAGE_BODY_TYPES, cutoff, batchSize, skipped.map((row) => row.eventId)]
    );
    const ids = keys.map((key) => ({ id: key.id, eventId: key.event_id }));
    const redacted = await runChunkSkippingUnrenderable(
      client,
      ids,
      (chunk) => redactRows(client, chunk),
      (row) => skipped.push(row)
    );
    await client.query('COMMIT');
    return { processed: keys.length, redacted: redacted.length };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

async function redactRows(client: pg.ClientBase, ids: string[]): Promise<string[]> {
  const { rows } = await client.query<{ id: string; type: string; payload: unknown }>(
    'SELECT id, type, payload FROM whatsapp_event_logs WHERE id = ANY($1::uuid[])',
    [ids]
  );
  if (rows.length === 0) return [];
  await client.query(
    `UPDATE whatsapp_event_logs AS e SET payload = r.payload, body_redacted_at = now(), updated_at = now()
       FROM unnest($1::uuid[], $2::jsonb[]) AS r(id, payload) WHERE e.id = r.id`,
    [rows.map((row) => row.id), rows.map((row) => JSON.stringify(redactMessageBody(row.type, row.payload)))]
  );
  return rows.map((row) => row.id);
}

export const MAX_RETENTION_PERIOD_MS = 36_500 * 86_400_000;

/**
 * Parses a retention period such as `90d`, `12w`, `36h` into ms (`--older-than`, `RETENTION_PERIOD`).
 * @throws Error naming the accepted forms, or the bounds (more than 0, at most 36500d = 100 years).
 */
export function parseRetentionPeriodMs(value: string): number {
  const match = /^(\d+)([dwh])$/.exec(value.trim());
  if (!match) throw new Error(`retention period must look like 90d, 12w or 36h, got "${value}"`);
  const unitMs = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }[match[2] as 'h' | 'd' | 'w'];
  const ms = Number(match[1]) * unitMs;
  if (ms <= 0) throw new Error('retention period must be positive');
  if (ms > MAX_RETENTION_PERIOD_MS)
    throw new Error(`retention period must be at most 36500d (100 years), got "${value}"`);
  return ms;
}
