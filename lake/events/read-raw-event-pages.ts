import type pg from 'pg';
import type { JsonValue } from '../../common/json-value.js';
import { accountJidsOf } from '../projections/account-membership.js';
import type { ProjectionEvent } from '../projections/extract-projection-facts.js';
import { EVENT_TIME_SQL, HAS_OWN_TIME_SQL } from '../projections/occurred-at.js';
import { runChunkSkippingUnrenderable, type SkippedRow } from './unreadable-rows.js';

/** One raw `whatsapp_event_logs` row, shaped as the projections read it, with its `id` (paging key). */
export interface RawEvent extends ProjectionEvent {
  /** `whatsapp_event_logs.id` (UUIDv7: ascending in insert order). */
  id: string;
}

interface RawEventRow {
  id: string;
  event_id: string;
  type: string;
  chat_jid: string | null;
  payload: JsonValue;
  effective_at: Date;
  has_own_time: boolean;
  account_jid: string | null;
  account_lid: string | null;
  source: string;
}

const FIRST_ID = '00000000-0000-0000-0000-000000000000';

/**
 * Reads the raw table in `id` order, one page at a time, through `client` (so inside the caller's
 * transaction and its `SHARE` lock): the keyset paging loop of the rebuilds (`wa-lake rebuild`,
 * architecture.md §9). Pages are read lazily; the last one is shorter than `pageSize`
 * (an empty page is never yielded). Event time is `eventTime`'s (`occurred-at.ts`): `occurred_at` unless it lies more than a day after the capture time.
 *
 * @param options.pageSize - rows per page (≥ 1).
 * @param options.types - when given, only events of these types.
 * @throws pg.DatabaseError when the query fails.
 */
export async function* readRawEventPages(
  client: pg.ClientBase,
  options: {
    pageSize: number;
    types?: readonly string[];
    /** Called for each row PostgreSQL cannot render (it is left out); without it such a row throws. */
    onSkipped?: (row: SkippedRow) => void;
    /** `event_id`s already known to be unrenderable: left out without trying them again. */
    knownSkipped?: ReadonlySet<string>;
  }
): AsyncGenerator<RawEvent[]> {
  const typeFilter = options.types ? 'AND type = ANY($3::text[])' : '';
  const params = (lastId: string): unknown[] =>
    options.types ? [lastId, options.pageSize, options.types] : [lastId, options.pageSize];
  const onSkipped = options.onSkipped ?? (() => undefined);
  let lastId = FIRST_ID;
  for (;;) {
    // Ids first (no payload rendered), then the page's rows: one row PostgreSQL cannot render is skipped
    // and reported, never the rebuild's end (ADR 0014).
    const { rows: keys } = await client.query<{ id: string; event_id: string }>(
      `SELECT id, event_id FROM whatsapp_event_logs WHERE id > $1 ${typeFilter} ORDER BY id LIMIT $2`,
      params(lastId)
    );
    const ids = keys
      .map((key) => ({ id: key.id, eventId: key.event_id }))
      .filter((key) => options.knownSkipped?.has(key.eventId) !== true);
    const rows = await runChunkSkippingUnrenderable(
      client,
      ids,
      (chunk) => readRows(client, chunk),
      (row) => {
        if (options.onSkipped === undefined)
          throw new Error(`raw event ${row.eventId} cannot be read (${row.sqlState})`);
        onSkipped(row);
      }
    );
    if (rows.length > 0) yield rows.map(toRawEvent);
    const last = keys.at(-1);
    if (!last || keys.length < options.pageSize) return;
    lastId = last.id;
  }
}

async function readRows(client: pg.ClientBase, ids: string[]): Promise<RawEventRow[]> {
  const { rows } = await client.query<RawEventRow>(
    `SELECT id, event_id, type, chat_jid, payload, ${EVENT_TIME_SQL} AS effective_at,
            ${HAS_OWN_TIME_SQL} AS has_own_time, account_jid, account_lid, source
       FROM whatsapp_event_logs WHERE id = ANY($1::uuid[]) ORDER BY id`,
    [ids]
  );
  return rows;
}

function toRawEvent(row: RawEventRow): RawEvent {
  return {
    id: row.id,
    eventId: row.event_id,
    type: row.type,
    chatJid: row.chat_jid,
    payload: row.payload,
    effectiveAt: row.effective_at,
    hasOwnTime: row.has_own_time,
    accountJids: accountJidsOf(row.account_jid, row.account_lid),
    source: row.source,
  };
}

/**
 * How many raw rows {@link readRawEventPages} will read (of `types` when given), for progress reports (ADR 0017).
 * Exact under the rebuild's SHARE lock.
 */
export async function countRawEvents(client: pg.ClientBase, types?: readonly string[]): Promise<number> {
  const { rows } = await client.query<{ count: string }>(
    types
      ? 'SELECT count(*) FROM whatsapp_event_logs WHERE type = ANY($1::text[])'
      : 'SELECT count(*) FROM whatsapp_event_logs',
    types ? [types] : []
  );
  return Number(rows[0]?.count ?? 0);
}
