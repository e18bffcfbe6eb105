import type pg from 'pg';
import type { MessageFacts } from '../projections/extract-message-facts.js';
import { isMessageKind } from '../projections/message-content.js';

/**
 * SQL of the message read model (issue #11 item 1): data-modifying CTEs that write the facts of many
 * events in one statement, set-based, with order-independent merge rules — the record with the
 * greatest (rank, time, event id) wins, edits are a set, a revoke keeps the earliest time, a reaction
 * the latest (time, event id). Rows are written in key order, so concurrent statements lock in one order.
 * `factsParam` (e.g. `$2`) is the JSON object built by {@link encodeMessageFacts}; `source` filters its event ids (`f.ev`).
 */
export function messageReadModelCtes(factsParam: string, source: string): string {
  return `
  wa_records AS (
    INSERT INTO whatsapp_message_records AS t
      (chat_jid, message_id, kind, is_message, sender_id, sent_at, reply_to_id, mention_count, record_rank, record_event_id)
    SELECT DISTINCT ON (f.c, f.i) f.c, f.i, f.k, f.im, f.s, f.a, f.rt, f.mc, f.rk, f.ev
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'm')
        AS f(ev uuid, c text, i text, k text, im boolean, s text, a timestamptz, rt text, mc int, rk int)
     WHERE ${source}
     ORDER BY f.c, f.i, f.rk DESC, f.a DESC, f.ev DESC
    ON CONFLICT (chat_jid, message_id) DO UPDATE SET
      kind = excluded.kind, is_message = excluded.is_message, sender_id = excluded.sender_id,
      sent_at = excluded.sent_at, reply_to_id = excluded.reply_to_id, mention_count = excluded.mention_count,
      record_rank = excluded.record_rank, record_event_id = excluded.record_event_id
    WHERE (excluded.record_rank, excluded.sent_at, excluded.record_event_id) > (t.record_rank, t.sent_at, t.record_event_id)),
  wa_edits AS (
    INSERT INTO whatsapp_message_edits (chat_jid, target_id, edited_at)
    SELECT DISTINCT f.c, f.t, f.a
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'e') AS f(ev uuid, c text, t text, a timestamptz)
     WHERE ${source}
     ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING),
  wa_revokes AS (
    INSERT INTO whatsapp_message_revokes AS t (chat_jid, target_id, deleted_at)
    SELECT f.c, f.t, min(f.a)
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'v') AS f(ev uuid, c text, t text, a timestamptz)
     WHERE ${source}
     GROUP BY f.c, f.t ORDER BY f.c, f.t
    ON CONFLICT (chat_jid, target_id) DO UPDATE SET deleted_at = excluded.deleted_at
    WHERE excluded.deleted_at < t.deleted_at),
  wa_reactions AS (
    INSERT INTO whatsapp_message_reactions AS t (chat_jid, target_id, reactor_id, text, reacted_at, event_id)
    SELECT DISTINCT ON (f.c, f.t, f.r) f.c, f.t, f.r, f.x, f.a, f.ev
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'x') AS f(ev uuid, c text, t text, r text, x text, a timestamptz)
     WHERE ${source}
     ORDER BY f.c, f.t, f.r, f.a DESC, f.ev DESC
    ON CONFLICT (chat_jid, target_id, reactor_id) DO UPDATE SET
      text = excluded.text, reacted_at = excluded.reacted_at, event_id = excluded.event_id
    WHERE (excluded.reacted_at, excluded.event_id) > (t.reacted_at, t.event_id))`;
}

const WRITE_STATEMENT = 'wa_write_message_facts';
const WRITE_SQL = `WITH ${messageReadModelCtes('$1', 'true')} SELECT 1`;

/** The facts of many events as the facts object of {@link messageReadModelCtes}, keyed by event id. */
export interface EncodedMessageFacts {
  m: object[];
  e: object[];
  v: object[];
  x: object[];
}

/** An empty {@link EncodedMessageFacts}. */
export function emptyEncodedFacts(): EncodedMessageFacts {
  return { m: [], e: [], v: [], x: [] };
}

/** Appends the facts of one event (`eventId`) to `into`; string lengths are left to PostgreSQL to check. */
export function encodeMessageFacts(into: EncodedMessageFacts, eventId: string, facts: MessageFacts): void {
  for (const r of facts.records) {
    into.m.push({
      ev: eventId,
      c: r.chatJid,
      i: r.messageId,
      k: r.kind,
      im: isMessageKind(r.kind),
      s: r.senderId,
      a: r.sentAt.toISOString(),
      rt: r.replyToId,
      mc: r.mentionCount,
      rk: r.rank,
    });
  }
  for (const e of facts.edits) {
    into.e.push({ ev: eventId, c: e.chatJid, t: e.targetId, a: new Date(e.editedAtMs).toISOString() });
  }
  for (const v of facts.revokes)
    into.v.push({ ev: eventId, c: v.chatJid, t: v.targetId, a: v.deletedAt.toISOString() });
  for (const x of facts.reactions) {
    into.x.push({ ev: eventId, c: x.chatJid, t: x.targetId, r: x.reactorId, x: x.text, a: x.reactedAt.toISOString() });
  }
}

/**
 * Writes message facts inside the caller's transaction (projection path and `wa-lake rebuild`).
 * Idempotent: writing the same facts again changes nothing.
 *
 * @throws pg.DatabaseError when PostgreSQL refuses a value (e.g. an id longer than 255 characters).
 */
export async function writeMessageFacts(client: pg.ClientBase, facts: EncodedMessageFacts): Promise<void> {
  if (facts.m.length + facts.e.length + facts.v.length + facts.x.length === 0) return;
  await client.query({ name: WRITE_STATEMENT, text: WRITE_SQL, values: [JSON.stringify(facts)] });
}
