import type pg from 'pg';
import type { ReadModelFacts } from '../projections/extract-message-facts.js';
import { isMessageKind } from '../projections/message-content.js';

/**
 * SQL of the message read model (issue #11 item 1): data-modifying CTEs that write the facts of many
 * events in one statement, set-based, with order-independent merge rules — the record with the
 * greatest (rank, time, event id) wins, edits are a set, a revoke keeps the earliest time, a reaction
 * the latest (time, event id). Rows are written in key order, so concurrent statements lock in one order.
 * The rollup `engagement_member_days` moves by the exact difference each changed row makes: an updated
 * row returns its previous values (`prev_*`, set from the old row by the update itself), a −1 for the
 * old day and a +1 for the new one.
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
      record_rank = excluded.record_rank, record_event_id = excluded.record_event_id,
      prev_is_message = t.is_message, prev_sender_id = t.sender_id, prev_sent_at = t.sent_at,
      prev_is_reply = t.reply_to_id IS NOT NULL
    WHERE (excluded.record_rank, excluded.sent_at, excluded.record_event_id) > (t.record_rank, t.sent_at, t.record_event_id)
    RETURNING chat_jid, is_message, sender_id, sent_at, reply_to_id, prev_is_message, prev_sender_id, prev_sent_at, prev_is_reply),
  wa_edits AS (
    INSERT INTO whatsapp_message_edits (chat_jid, target_id, edited_at)
    SELECT DISTINCT f.c, f.t, f.a
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'e') AS f(ev uuid, c text, t text, a timestamptz)
     WHERE ${source}
     ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING
    RETURNING 1),
  wa_revokes AS (
    INSERT INTO whatsapp_message_revokes AS t (chat_jid, target_id, deleted_at)
    SELECT f.c, f.t, min(f.a)
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'v') AS f(ev uuid, c text, t text, a timestamptz)
     WHERE ${source}
     GROUP BY f.c, f.t ORDER BY f.c, f.t
    ON CONFLICT (chat_jid, target_id) DO UPDATE SET deleted_at = excluded.deleted_at
    WHERE excluded.deleted_at < t.deleted_at
    RETURNING 1),
  wa_reactions AS (
    INSERT INTO whatsapp_message_reactions AS t (chat_jid, target_id, reactor_id, text, reacted_at, event_id)
    SELECT DISTINCT ON (f.c, f.t, f.r) f.c, f.t, f.r, f.x, f.a, f.ev
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'x') AS f(ev uuid, c text, t text, r text, x text, a timestamptz)
     WHERE ${source}
     ORDER BY f.c, f.t, f.r, f.a DESC, f.ev DESC
    ON CONFLICT (chat_jid, target_id, reactor_id) DO UPDATE SET
      text = excluded.text, reacted_at = excluded.reacted_at, event_id = excluded.event_id,
      prev_text = t.text, prev_reacted_at = t.reacted_at
    WHERE (excluded.reacted_at, excluded.event_id) > (t.reacted_at, t.event_id)
    RETURNING chat_jid, reactor_id, text, reacted_at, prev_text, prev_reacted_at),
  wa_member_days AS (
    INSERT INTO engagement_member_days AS t (group_jid, participant_key, day, messages, replies, reactions_given)
    SELECT g, p, d, sum(m), sum(r), sum(x)
      FROM (SELECT chat_jid, sender_id, sent_at, 1, (reply_to_id IS NOT NULL)::int, 0
              FROM wa_records WHERE is_message AND sender_id IS NOT NULL
            UNION ALL
            SELECT chat_jid, prev_sender_id, prev_sent_at, -1, -(prev_is_reply::int), 0
              FROM wa_records WHERE prev_is_message AND prev_sender_id IS NOT NULL
            UNION ALL
            SELECT chat_jid, reactor_id, reacted_at, 0, 0, 1 FROM wa_reactions WHERE text <> ''
            UNION ALL
            SELECT chat_jid, reactor_id, prev_reacted_at, 0, 0, -1 FROM wa_reactions WHERE prev_text <> '')
           AS delta(g, p, at, m, r, x),
           LATERAL (SELECT (delta.at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS d) AS local_day
     GROUP BY g, p, d
    HAVING sum(m) <> 0 OR sum(r) <> 0 OR sum(x) <> 0
     ORDER BY g, p, d
    ON CONFLICT (group_jid, participant_key, day) DO UPDATE SET
      messages = t.messages + excluded.messages, replies = t.replies + excluded.replies,
      reactions_given = t.reactions_given + excluded.reactions_given
    RETURNING 1)`;
}

/**
 * A condition that holds once every CTE of {@link messageReadModelCtes} has run (it reads them all, so a
 * later CTE of the same statement guarded by it runs after their rows are written and locked). It reads
 * them in the order PostgreSQL runs them when nothing reads them (the last CTE first, which reads records
 * and reactions; then revokes, edits), so both statements lock the read-model tables in one order.
 */
export const MESSAGE_READ_MODEL_WRITTEN =
  '(SELECT count(*) FROM wa_member_days) + (SELECT count(*) FROM wa_revokes) + (SELECT count(*) FROM wa_edits) >= 0';

const WRITE_STATEMENT = 'wa_write_message_facts';
const WRITE_SQL = `WITH ${messageReadModelCtes('$1', 'true')} SELECT 1`;

/** The facts of many events as the facts object of {@link messageReadModelCtes}, keyed by event id. */
export interface EncodedMessageFacts {
  m: object[];
  e: object[];
  v: object[];
  x: object[];
}

/** True when `facts` holds nothing to write. */
export function isEmptyEncodedFacts(facts: EncodedMessageFacts): boolean {
  return facts.m.length + facts.e.length + facts.v.length + facts.x.length === 0;
}

/** Appends every fact of `from` to `into`. */
export function mergeEncodedFacts(into: EncodedMessageFacts, from: EncodedMessageFacts): void {
  into.m.push(...from.m);
  into.e.push(...from.e);
  into.v.push(...from.v);
  into.x.push(...from.x);
}

/** An empty {@link EncodedMessageFacts}. */
export function emptyEncodedFacts(): EncodedMessageFacts {
  return { m: [], e: [], v: [], x: [] };
}

/** Longest id the read-model columns hold (`varchar(255)`). */
const MAX_ID_LENGTH = 255;
const fits = (...ids: (string | null)[]): boolean => ids.every((id) => id === null || id.length <= MAX_ID_LENGTH);

/**
 * Appends the facts of one event (`eventId`) to `into`. A fact naming an id longer than its column is
 * left out, so the read model can never make PostgreSQL refuse the raw row it rides with (architecture.md §8:
 * a projection never stops the raw row from being stored).
 */
export function encodeMessageFacts(into: EncodedMessageFacts, eventId: string, facts: ReadModelFacts): void {
  for (const r of facts.records) {
    if (!fits(r.chatJid, r.messageId, r.senderId, r.replyToId)) continue;
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
    if (!fits(e.chatJid, e.targetId)) continue;
    into.e.push({ ev: eventId, c: e.chatJid, t: e.targetId, a: new Date(e.editedAtMs).toISOString() });
  }
  for (const v of facts.revokes)
    into.v.push({ ev: eventId, c: v.chatJid, t: v.targetId, a: v.deletedAt.toISOString() });
  for (const x of facts.reactions) {
    if (!fits(x.chatJid, x.targetId, x.reactorId)) continue;
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

/**
 * Recounts `engagement_member_days` from the read model (after `wa-lake rebuild`, or when the engagement
 * time zone changes): the same numbers the incremental statement keeps, computed from scratch.
 *
 * @throws pg.DatabaseError when a statement fails.
 */
export async function recountMemberDays(client: pg.ClientBase): Promise<void> {
  await client.query('TRUNCATE engagement_member_days');
  await client.query(`
    INSERT INTO engagement_member_days (group_jid, participant_key, day, messages, replies, reactions_given)
    SELECT g, p, (at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date, sum(m), sum(r), sum(x)
      FROM (SELECT chat_jid, sender_id, sent_at, 1, (reply_to_id IS NOT NULL)::int, 0
              FROM whatsapp_message_records WHERE is_message AND sender_id IS NOT NULL
            UNION ALL
            SELECT chat_jid, reactor_id, reacted_at, 0, 0, 1 FROM whatsapp_message_reactions WHERE text <> '')
           AS activity(g, p, at, m, r, x)
     GROUP BY 1, 2, 3`);
}
