import type pg from 'pg';
import { inTransaction } from '../pool.js';
import { deleteEarlierReading, exportFileDigest, type ReplacedReading } from './earlier-reading.js';
import { upsertExportGroups } from './export-groups.js';
import { exportMessageIdNames } from './export-message-rows.js';
import type { DateOrderDecision } from './date-order.js';
import { parseChatExport, type ExportedMessageKind, type UnreadableLine } from './parse-chat-export.js';
import { storeExportMessages } from './store-export-messages.js';
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

/** The group's subject as the lake knows it: iOS writes system lines under the group's name (ADR 0023). */
async function readGroupSubjects(pool: pg.Pool, groupJid: string): Promise<string[]> {
  const { rows } = await pool.query<{ subject: string }>(
    'SELECT subject FROM whatsapp_groups WHERE jid = $1 AND subject IS NOT NULL',
    [groupJid]
  );
  return rows.map((row) => row.subject);
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
    const stored = await storeExportMessages(client, parsed.messages, eventIds, byKind, {
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
