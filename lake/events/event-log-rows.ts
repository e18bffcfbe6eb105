import type pg from 'pg';
import { loneLidParticipantCtes, type LoneLidFact } from './lone-lid-participants.js';
import { messageReadModelCtes, type PresentFactKinds } from './message-read-model-ctes.js';
import { isEmptyEncodedFacts, presentFactKinds, type EncodedMessageFacts } from './messages-repository.js';

/** One raw row of `whatsapp_event_logs` (architecture.md §9), as the events repository builds it. */
export interface EventLogRow {
  /** UUIDv7 primary key. */
  id: string;
  /** The `X-Event-Id` idempotency key, lower case. */
  eventId: string;
  type: string;
  chatJid: string | null;
  /** The whole request body as JSON text; PostgreSQL extracts `payload` from it. */
  bodyText: string;
  receivedAt: Date;
  capturedAt: Date | null;
  upsertType: string | null;
  occurredAt: Date | null;
  isSanitized: boolean;
  /** The linked account's JID as the collector sent it (`account_jid`); absent or null when not sent. */
  accountJid?: string | null;
  /** The linked account's LID as the collector sent it (`account_lid`, ADR 0019); absent or null when not sent. */
  accountLid?: string | null;
  /** The first collector's id of the same item, when it differs; absent or null otherwise. */
  legacyEventId?: string | null;
  /** Where the collector got the item (`live`, `history`, `on_demand`, `replay`; ADR 0016); absent or null = `live`. */
  source?: string | null;
  /**
   * The identity generation of the erasure tombstones the row was checked against (ADR 0027): the INSERT fails
   * with SQLSTATE WL001 (`whatsapp_erasure_fence`) when a `forget` or `rebuild` committed since. Absent or null:
   * not checked (rows a command builds from files, not deliveries).
   */
  erasureGeneration?: number | null;
}

// One statement for any batch size, so it is parsed and planned once per connection. The rows travel
// as one JSON array whose `b` members are the received body texts spliced in verbatim: PostgreSQL's
// jsonb parser reads every body exactly once, numbers included, and nothing is escaped twice.
const INSERT_BATCH_SQL = `
  INSERT INTO whatsapp_event_logs
    (id, event_id, type, chat_jid, payload, received_at, captured_at, upsert_type, occurred_at, sanitized, account_jid,
     account_lid, source)
  SELECT r.i, r.e, r.t, r.c, r.b -> 'payload', r.r, r.ca, r.u, r.o, r.s, r.a, r.al, COALESCE(r.so, 'live')
  FROM jsonb_to_recordset($1::jsonb)
    AS r(i uuid, e uuid, t text, c text, b jsonb, r timestamptz, ca timestamptz, u text, o timestamptz, s boolean,
         a text, al text, l uuid, so text, g bigint)
  WHERE whatsapp_erasure_fence(r.g) AND (r.l IS NULL OR NOT EXISTS (SELECT 1 FROM whatsapp_event_logs AS stored WHERE stored.event_id = r.l))
  ON CONFLICT (event_id) DO NOTHING
  RETURNING event_id, (SELECT generation FROM whatsapp_identity_generation) AS generation`;

// The same insert plus the message read model (ADR 0006) and/or the participant rows of
// lone LIDs (`lone-lid-participants.ts`): one statement, one commit; facts apply only for
// rows inserted now, so a redelivery changes nothing. Each text is named (prepared once per connection): one
// per combination of the fact kinds present (ADR 0012: an empty CTE still costs) and of lone LIDs.
const INSERTED_NOW = (alias: string): string => `${alias}.ev IN (SELECT event_id FROM wa_inserted)`;

// Built once per combination: the texts are constant, and building them per statement cost the API's thread.
const statements = new Map<string, { name: string; text: string }>();

function insertStatement(readModel: EncodedMessageFacts | null, hasLoneLids: boolean): { name: string; text: string } {
  const kinds = readModel === null ? null : presentFactKinds(readModel);
  const key = `${kinds ? `${+kinds.m}${+kinds.e}${+kinds.v}${+kinds.x}` : '-'}${+hasLoneLids}`;
  let statement = statements.get(key);
  if (!statement) {
    statement = buildInsertStatement(kinds, hasLoneLids);
    statements.set(key, statement);
  }
  return statement;
}

function buildInsertStatement(kinds: PresentFactKinds | null, hasLoneLids: boolean): { name: string; text: string } {
  const readModelCtes = kinds === null ? null : messageReadModelCtes('$2', INSERTED_NOW('f'), kinds);
  if (readModelCtes === null && !hasLoneLids) return { name: 'wa_insert_event_log_batch', text: INSERT_BATCH_SQL };
  const ctes = [`wa_inserted AS (${INSERT_BATCH_SQL})`];
  if (readModelCtes) ctes.push(readModelCtes.sql);
  if (hasLoneLids)
    ctes.push(loneLidParticipantCtes(readModelCtes ? '$3' : '$2', INSERTED_NOW('l'), readModelCtes?.written ?? 'true'));
  return {
    name: `wa_insert_event_log_batch${readModelCtes ? `_with_read_model_${readModelCtes.variant}` : ''}${hasLoneLids ? '_with_lone_lids' : ''}`,
    text: `WITH ${ctes.join(',')}\n  SELECT event_id, generation FROM wa_inserted`,
  };
}

/**
 * The one raw-row INSERT of the lake (architecture.md §9): writes rows encoded by {@link encodeEventLogRow}
 * with `ON CONFLICT (event_id) DO NOTHING`, on the pool (autocommit) or inside a caller's transaction.
 * DO NOTHING also skips a repeat of an id inserted earlier by the same statement, and a row whose
 * legacy id (the first collector's id of the same item) is already stored is skipped too.
 * With `readModel`, the same statement writes the message read model of the rows inserted now;
 * with `loneLids` (from `loneLidsOf`), their participant rows.
 *
 * `observeGeneration` is told the identity generation the statement read (`whatsapp_identity_generation`, bumped by
 * `forget` and `rebuild`), when it inserted anything: what the caller's identity cache must be checked against
 * (ADR 0019, `known-identities.ts`).
 *
 * @returns the event ids inserted now (once each); an id missing from it was already stored.
 * @throws pg.DatabaseError (or a connection error) as `pg` reports it.
 */
export async function insertEventLogRecords(
  queryable: pg.Pool | pg.ClientBase,
  recordJsons: readonly string[],
  readModel: EncodedMessageFacts | null = null,
  loneLids: readonly LoneLidFact[] = [],
  observeGeneration: (generation: number) => void = () => undefined
): Promise<Set<string>> {
  const values = [`[${recordJsons.join(',')}]`];
  const facts = readModel !== null && !isEmptyEncodedFacts(readModel) ? readModel : null;
  if (facts) values.push(JSON.stringify(facts));
  if (loneLids.length > 0) values.push(JSON.stringify(loneLids));
  const result = await queryable.query<{ event_id: string; generation: string }>({
    ...insertStatement(facts, loneLids.length > 0),
    values,
  });
  const first = result.rows[0];
  if (first) observeGeneration(Number(first.generation));
  return new Set(result.rows.map((row) => row.event_id));
}

/**
 * Encodes one row as a member of {@link insertEventLogRecords}' JSON array; the body text is spliced
 * in verbatim (it is a JSON value `JSON.parse` accepted).
 *
 * @throws RangeError when a time of the row is an invalid Date.
 */
export function encodeEventLogRow(row: EventLogRow): string {
  const scalars = JSON.stringify({
    i: row.id,
    e: row.eventId,
    t: row.type,
    c: row.chatJid,
    r: row.receivedAt.toISOString(),
    ca: row.capturedAt?.toISOString() ?? null,
    u: row.upsertType,
    o: row.occurredAt?.toISOString() ?? null,
    s: row.isSanitized,
    a: row.accountJid ?? null,
    al: row.accountLid ?? null,
    l: row.legacyEventId ?? null,
    so: row.source ?? null,
    g: row.erasureGeneration ?? null,
  });
  return `${scalars.slice(0, -1)},"b":${row.bodyText}}`;
}
