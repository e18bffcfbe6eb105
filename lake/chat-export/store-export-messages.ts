import type pg from 'pg';
import { encodeEventLogRow, insertEventLogRecords, type EventLogRow } from '../events/event-log-rows.js';
import {
  isStaleErasureCheck,
  pseudonymizeErasedExportRow,
  readTombstoneSnapshot,
} from '../privacy/erasure-tombstones.js';
import { exportMessageRows } from './export-message-rows.js';
import type { ExportedMessage, ExportedMessageKind, UnreadableLine } from './parse-chat-export.js';
import type { DateOrder } from './written-timestamp.js';

// A `±HH:MM` offset, as `--time-zone` accepts one (the import's `resolveExportTimeZone`).
const OFFSET = /^[+-](?:0\d|1[0-4]):[0-5]\d$/;
const INSERT_BATCH_ROWS = 2_000;

/**
 * Wall-clock times (`YYYY-MM-DDTHH:MM:SS`) as instants in `timeZone`, by PostgreSQL's time-zone database (a
 * `±HH:MM` offset as an interval, which PostgreSQL reads east of UTC; as a text it would read it as POSIX, west).
 */
async function instantsOf(
  pool: pg.ClientBase,
  wallClocks: readonly string[],
  timeZone: string
): Promise<Array<Date | null>> {
  const zone = OFFSET.test(timeZone) ? '$2::interval' : '$2::text';
  // A wall clock in a daylight-saving gap (01:30 on the night Lisbon moves from 01:00 to 02:00) does not exist:
  // PostgreSQL moves it an hour on, and reading the instant back in the zone shows it. Null, never stored shifted.
  const { rows } = await pool.query<{ at: Date; exists: boolean }>(
    `SELECT (w AT TIME ZONE ${zone}) AS at, ((w AT TIME ZONE ${zone}) AT TIME ZONE ${zone}) = w AS exists
       FROM unnest($1::timestamp[]) WITH ORDINALITY AS x(w, n) ORDER BY n`,
    [wallClocks, timeZone]
  );
  return rows.map((row) => (row.exists ? row.at : null));
}

/** Of the exported messages `eventIds` already in the lake, how many were read in a zone other than `timeZone`. */
async function readOtherTimeZones(
  pool: pg.ClientBase,
  eventIds: readonly string[],
  timeZone: string
): Promise<Array<{ timeZone: string; messages: number }>> {
  if (eventIds.length === 0) return [];
  const { rows } = await pool.query<{ zone: string; messages: number }>(
    `SELECT payload->'export'->>'time_zone' AS zone, count(*)::int AS messages FROM whatsapp_event_logs
      WHERE event_id = ANY($1::uuid[]) AND type = 'export.message'
        AND payload->'export'->>'time_zone' IS DISTINCT FROM $2
      GROUP BY 1`,
    [eventIds, timeZone]
  );
  return rows.map((row) => ({ timeZone: row.zone, messages: row.messages }));
}

/** Reads of the tombstones one batch may need: each retry follows a `forget` or `rebuild` that committed. */
const MAX_ERASURE_CHECKS = 5;

/**
 * Inserts exported rows checked against the erasure tombstones (ADR 0027): a message of an erased sender is stored
 * as `forget` left the lake; the INSERT's fence makes a `forget` committed meanwhile be read again. Inside the
 * import's transaction, each attempt is a savepoint, so a stale check does not abort the batches before it.
 */
async function insertCheckedRows(
  client: pg.ClientBase,
  rows: readonly EventLogRow[],
  key: string | null
): Promise<Set<string>> {
  for (let attempt = 1; ; attempt += 1) {
    const snapshot = await readTombstoneSnapshot(client);
    const checked = rows.map((row) => ({
      ...pseudonymizeErasedExportRow(row, snapshot, key),
      erasureGeneration: snapshot.generation,
    }));
    await client.query('SAVEPOINT export_batch');
    try {
      const stored = await insertEventLogRecords(client, checked.map(encodeEventLogRow));
      await client.query('RELEASE SAVEPOINT export_batch');
      return stored;
    } catch (err) {
      await client.query('ROLLBACK TO SAVEPOINT export_batch');
      if (!isStaleErasureCheck(err) || attempt >= MAX_ERASURE_CHECKS) throw err;
    }
  }
}

/**
 * Stores an export's messages in batches inside the import's transaction (`client`), ADR 0023: their instants in the zone (a wall clock in a daylight-saving gap is an
 * unreadable line, taken out of `byKind`), their rows, and which of them an earlier import stored in another zone.
 * @returns the rows stored now, the gap lines, the earlier zones with their counts, and every stored or known id.
 * @throws pg.DatabaseError when a statement fails (the caller's transaction rolls back).
 */
export async function storeExportMessages(
  client: pg.ClientBase,
  messages: readonly ExportedMessage[],
  eventIds: readonly string[],
  byKind: Record<ExportedMessageKind, number>,
  options: {
    groupJid: string;
    timeZone: string;
    importedAt: Date;
    groupSubject: string | null;
    fileDigest: string;
    dateOrder: DateOrder;
    erasureKey?: string | null;
  }
): Promise<{
  inserted: number;
  gapLines: UnreadableLine[];
  earlierZones: Map<string, number>;
  keptEventIds: string[];
}> {
  let inserted = 0;
  const gapLines: UnreadableLine[] = [];
  const earlierZones = new Map<string, number>();
  const keptEventIds: string[] = [];
  for (let start = 0; start < messages.length; start += INSERT_BATCH_ROWS) {
    const batch = messages.slice(start, start + INSERT_BATCH_ROWS);
    const batchIds = eventIds.slice(start, start + INSERT_BATCH_ROWS);
    const instants = await instantsOf(
      client,
      batch.map((message) => message.wallClock),
      options.timeZone
    );
    const kept = instants.flatMap((at, index) => (at === null ? [] : [index]));
    for (const [index, at] of instants.entries()) {
      const message = batch[index];
      if (at !== null || message === undefined) continue;
      byKind[message.kind] -= 1;
      gapLines.push({ line: message.line, reason: 'time that does not exist in the time zone (daylight-saving gap)' });
    }
    const sentAt = kept.map((index) => instants[index] ?? new Date(Number.NaN));
    const keptIds = kept.map((index) => batchIds[index] ?? '');
    keptEventIds.push(...keptIds);
    const keptMessages = kept.map((index) => batch[index]).filter((m) => m !== undefined);
    const rows = exportMessageRows(options.groupJid, keptMessages, sentAt, keptIds, options);
    const stored = await insertCheckedRows(client, rows, options.erasureKey ?? null);
    inserted += stored.size;
    const known = keptIds.filter((id) => !stored.has(id));
    for (const zone of await readOtherTimeZones(client, known, options.timeZone))
      earlierZones.set(zone.timeZone, (earlierZones.get(zone.timeZone) ?? 0) + zone.messages);
  }
  return { inserted, gapLines, earlierZones, keptEventIds };
}
