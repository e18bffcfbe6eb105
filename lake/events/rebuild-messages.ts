import type pg from 'pg';
import { discardKeptEngagementReports } from '../engagement/kept-engagement-reports.js';
import { ProgressMeter, type ProgressListener } from '../../common/progress-meter.js';
import { extractReadModelFacts } from '../projections/extract-read-model-facts.js';
import { UnnamedTimeZoneError } from '../errors.js';
import type { SkippedRow } from './unreadable-rows.js';
import { emptyEncodedFacts, encodeMessageFacts, writeMessageFacts } from './messages-repository.js';
import { countRawEvents, readRawEventPages } from './read-raw-event-pages.js';

const PAGE_SIZE = 2_000;
/** The types `extractReadModelFacts` reads. */
const MESSAGE_TYPES = ['messages.upsert', 'messages.update', 'messages.reaction'];
const MESSAGE_TABLES = [
  'whatsapp_message_records',
  'whatsapp_message_edits',
  'whatsapp_message_revokes',
  'whatsapp_message_reactions',
];

/**
 * Checks that `timeZone` is an IANA time zone name PostgreSQL knows (`America/Sao_Paulo`, `UTC`), before any
 * work depends on it (ADR 0013).
 *
 * @throws pg.DatabaseError with PostgreSQL's own message (`time zone "…" not recognized`) when it does not know it.
 * @throws UnnamedTimeZoneError for a zone PostgreSQL accepts that is no IANA name (`+05:00`, `UTC+5`): it would
 *   read the offset with the POSIX sign, the opposite of what the value says.
 */
export async function checkTimeZone(client: pg.ClientBase, timeZone: string): Promise<void> {
  await client.query(`SELECT now() AT TIME ZONE $1`, [timeZone]);
  const { rows } = await client.query<{ named: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1) AS named`,
    [timeZone]
  );
  if (rows[0]?.named !== true) throw new UnnamedTimeZoneError(timeZone);
}

/**
 * Rebuilds the message read model from the raw table (`wa-lake rebuild`), inside the
 * caller's transaction (which holds the raw table in SHARE mode): empties the tables and replays every
 * message event page by page through the same set-based statement as live ingest. The rollups need no
 * step of their own: the engagement views count the read model when read (ADR 0013). `timeZone`, when
 * given, is stored first (`engagement_settings`); the views use the stored zone from the next read on.
 *
 * @param skipped - when given, rows PostgreSQL cannot render are left out and appended to it (else they throw).
 * @param onProgress - when given, each page is reported with its share done, rate and ETA (ADR 0017).
 * @returns how many raw message events were replayed.
 * @throws pg.DatabaseError when a statement fails (e.g. `timeZone` is not a time zone PostgreSQL knows).
 */
export async function rebuildMessageReadModel(
  client: pg.ClientBase,
  timeZone?: string,
  skipped?: SkippedRow[],
  onProgress?: ProgressListener
): Promise<number> {
  if (timeZone !== undefined) {
    await checkTimeZone(client, timeZone);
    await client.query(`UPDATE engagement_settings SET time_zone = $1`, [timeZone]);
  }
  // A rebuild or a change of zone may change any number: kept reports are not served across it (ADR 0034).
  await discardKeptEngagementReports(client);
  await client.query(`TRUNCATE ${MESSAGE_TABLES.join(', ')}`);
  const meter = onProgress ? new ProgressMeter('messages', await countRawEvents(client, MESSAGE_TYPES)) : null;
  let events = 0;
  for await (const page of readRawEventPages(client, {
    pageSize: PAGE_SIZE,
    types: MESSAGE_TYPES,
    // Rows the projection pass already found unrenderable are left out (ADR 0014).
    ...(skipped
      ? { onSkipped: (row: SkippedRow) => skipped.push(row), knownSkipped: new Set(skipped.map((row) => row.eventId)) }
      : {}),
  })) {
    const facts = emptyEncodedFacts();
    for (const event of page) encodeMessageFacts(facts, event.eventId, extractReadModelFacts(event));
    await writeMessageFacts(client, facts);
    events += page.length;
    if (meter) onProgress?.(meter.advance(page.length));
  }
  return events;
}
