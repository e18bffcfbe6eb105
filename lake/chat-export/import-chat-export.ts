import type pg from 'pg';
import { encodeEventLogRow, insertEventLogRecords, type EventLogRow } from '../events/event-log-rows.js';
import { inTransaction } from '../pool.js';
import {
  isStaleErasureCheck,
  pseudonymizeErasedExportRow,
  readTombstoneSnapshot,
} from '../privacy/erasure-tombstones.js';
import { deleteEarlierReading, exportFileDigest, type ReplacedReading } from './earlier-reading.js';
import { upsertExportGroups } from './export-groups.js';
import { exportMessageIdNames, exportMessageRows } from './export-message-rows.js';
import type { DateOrderDecision } from './date-order.js';
import {
  parseChatExport,
  type ExportedMessage,
  type ExportedMessageKind,
  type UnreadableLine,
} from './parse-chat-export.js';
import type { DateOrder } from './written-timestamp.js';

/** Thrown when `--time-zone` is neither an IANA zone PostgreSQL knows nor a `±HH:MM` offset. */
export class UnknownTimeZoneError extends Error {
  override readonly name = 'UnknownTimeZoneError';
  constructor(readonly timeZone: string) {
    super(`unknown time zone "${timeZone}": give an IANA name (America/Sao_Paulo, UTC) or an offset such as -03:00`);
  }
}

/**
 * Thrown before anything is stored when a text holds no WhatsApp message or system line at all: an empty file,
 * a binary one, or text in another encoding. An import that says "0 messages" and exits 0 would hide that.
 */
export class NoChatMessagesError extends Error {
  override readonly name = 'NoChatMessagesError';
  constructor(
    readonly lines: number,
    readonly unreadableLines: number,
    hasNulCharacters: boolean
  ) {
    super(
      lines === 0
        ? 'holds no text: nothing was imported'
        : `holds no WhatsApp message: none of its ${String(lines)} lines starts with a date and a time as an ` +
            `export's messages do (${String(unreadableLines)} unreadable${hasNulCharacters ? '; it holds NUL characters: UTF-16 or binary?' : ''}), ` +
            'so nothing was imported'
    );
  }
}

/** What one import read and stored (ADR 0023). */
export interface ChatExportImport {
  lines: number;
  messages: number;
  byKind: Record<ExportedMessageKind, number>;
  systemLines: number;
  unreadable: UnreadableLine[];
  /** Messages stored now; the rest were stored by an earlier import of the same messages. */
  inserted: number;
  /** The zone the written times were read in. */
  timeZone: string;
  /**
   * Messages of the file an earlier import stored with its times read in another zone: they keep that zone's
   * instants (the first import's zone wins, ADR 0023).
   */
  earlierTimeZones: Array<{ timeZone: string; messages: number }>;
  /** The day/month order the written dates were read in, and how it was decided. */
  dateOrder: DateOrderDecision;
  /**
   * Messages an earlier import of the same file stored with its dates read in the other order, deleted by this
   * import in its transaction: the last reading of a file is the one the lake counts (ADR 0023).
   */
  replacedReadings: ReplacedReading[];
  /** The group's name the export gives (its iOS system lines, else its file name), null when it gives none. */
  groupSubject: string | null;
}

const OFFSET = /^[+-](?:0\d|1[0-4]):[0-5]\d$/;
const INSERT_BATCH_ROWS = 2_000;

/**
 * The zone exported times are read in: `requested` when PostgreSQL knows it as an IANA name or it is a `±HH:MM`
 * offset, else the lake's engagement time zone (`wa_engagement_time_zone()`) when none was requested.
 * @throws UnknownTimeZoneError for anything else.
 */
export async function resolveExportTimeZone(pool: pg.Pool, requested: string | undefined): Promise<string> {
  if (requested === undefined) {
    const { rows } = await pool.query<{ tz: string }>('SELECT wa_engagement_time_zone() AS tz');
    return rows[0]?.tz ?? 'UTC';
  }
  if (OFFSET.test(requested)) return requested;
  const { rows } = await pool.query<{ known: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1) AS known',
    [requested]
  );
  if (!rows[0]?.known) throw new UnknownTimeZoneError(requested);
  return requested;
}

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

/** The group's subject as the lake knows it: iOS writes system lines under the group's name (ADR 0023). */
async function readGroupSubjects(pool: pg.Pool, groupJid: string): Promise<string[]> {
  const { rows } = await pool.query<{ subject: string }>(
    'SELECT subject FROM whatsapp_groups WHERE jid = $1 AND subject IS NOT NULL',
    [groupJid]
  );
  return rows.map((row) => row.subject);
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
 * Imports one WhatsApp "Export chat" text into the lake (ADR 0023): reads it
 * ({@link parseChatExport}), reads the written times in `timeZone`, and stores each message as an `export.message`
 * row (`source` `export`) with `ON CONFLICT (event_id) DO NOTHING`, so a message already imported adds nothing.
 * Each row records the file's digest and the day/month order its dates were read in; in the same transaction the
 * messages an earlier import of the same file stored under the other order are deleted ({@link deleteEarlierReading}).
 * System lines are counted, not stored; unreadable lines are returned with their numbers.
 *
 * @param options.eventIdOf - UUIDv5 of a name in the lake's event-id namespace (`collector/event-id.ts`).
 * @throws NoChatMessagesError (nothing stored) when the text holds no message or system line at all;
 *   DateOrderConflictError (nothing stored) when the dates cannot tell the day/month order and none was
 *   given; DateOrderContradictionError (nothing stored) when `--date-order` makes a date impossible that exists in
 *   the other order; pg.DatabaseError when a statement fails (one transaction: nothing is stored).
 */
export async function importChatExport(
  pool: pg.Pool,
  options: {
    groupJid: string;
    text: string;
    timeZone: string;
    eventIdOf: (name: string) => string;
    /** `--date-order`; by default decided from the file's dates. */
    dateOrder?: DateOrder;
    /** The group's name the file's name gives (`WhatsApp Chat with NAME.txt`), used when its lines give none. */
    fileTitle?: string | null;
    importedAt?: Date;
    /** `ERASURE_KEY` (ADR 0027): messages of erased senders are stored as `forget` left them. */
    erasureKey?: string | null;
  }
): Promise<ChatExportImport> {
  const importedAt = options.importedAt ?? new Date();
  const parsed = parseChatExport(options.text, {
    now: importedAt,
    groupSubjects: await readGroupSubjects(pool, options.groupJid),
    ...(options.dateOrder === undefined ? {} : { dateOrder: options.dateOrder }),
  });
  if (parsed.messages.length === 0 && parsed.systemLines === 0)
    throw new NoChatMessagesError(parsed.lines, parsed.unreadable.length, options.text.includes('\u0000'));
  const groupSubject = parsed.groupName ?? options.fileTitle ?? null;
  const byKind: Record<ExportedMessageKind, number> = { text: 0, edited: 0, media: 0, deleted: 0 };
  for (const message of parsed.messages) byKind[message.kind] += 1;
  // Ordinals count within the whole file, so the names are made before the rows are cut into batches.
  const eventIds = exportMessageIdNames(options.groupJid, parsed.messages).map(options.eventIdOf);
  const fileDigest = exportFileDigest(options.text);
  const dateOrder = parsed.dateOrder.order;
  const outcome = await inTransaction(pool, async (client) => {
    const stored = await storeMessages(client, parsed.messages, eventIds, byKind, {
      ...options,
      importedAt,
      groupSubject,
      fileDigest,
      dateOrder,
    });
    const keptEventIds = [...stored.keptEventIds];
    const replacedReadings = await deleteEarlierReading(client, { ...options, fileDigest, dateOrder, keptEventIds });
    // A group known only from exports is a group of the lake like any other (ADR 0029).
    await upsertExportGroups(client, options.groupJid, groupSubject);
    return { ...stored, replacedReadings };
  });
  return {
    groupSubject,
    lines: parsed.lines,
    messages: parsed.messages.length - outcome.gapLines.length,
    byKind,
    systemLines: parsed.systemLines,
    unreadable: [...parsed.unreadable, ...outcome.gapLines].sort((a, b) => a.line - b.line),
    inserted: outcome.inserted,
    timeZone: options.timeZone,
    earlierTimeZones: [...outcome.earlierZones].map(([timeZone, messages]) => ({ timeZone, messages })),
    dateOrder: parsed.dateOrder,
    replacedReadings: outcome.replacedReadings,
  };
}

/**
 * Stores the messages in batches: their instants in the zone (a wall clock in a daylight-saving gap is an
 * unreadable line, taken out of `byKind`), their rows, and which of them an earlier import stored in another zone.
 */
async function storeMessages(
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
