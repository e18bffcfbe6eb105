/** Which fact lists of an encoded facts object hold anything (`m` records, `e` edits, `v` revokes, `x` reactions). */
export interface PresentFactKinds {
  m: boolean;
  e: boolean;
  v: boolean;
  x: boolean;
}

/** The read-model part of one statement: its CTEs, the condition that they have all run, and a name suffix. */
export interface MessageReadModelCtes {
  /** Comma-separated CTEs (no leading `WITH`). */
  sql: string;
  /**
   * A condition that holds once every CTE has run (it reads them all, so a later CTE of the same statement
   * guarded by it runs after their rows are written and locked). It reads them in the order PostgreSQL runs
   * them when nothing reads them (the deltas first, which read records and reactions; then revokes, edits),
   * so every statement locks the read-model tables in one order.
   */
  written: string;
  /** Distinguishes the statement texts (e.g. `mx`), so each is prepared under a name of its own. */
  variant: string;
}

/**
 * SQL of the message read model (issue #11 item 1): data-modifying CTEs that write the facts of many
 * events in one statement, set-based, with order-independent merge rules — the record with the
 * greatest (rank, time, event id) wins, edits are a set, a revoke keeps the earliest time, a reaction
 * the latest (time, event id). Rows are written in key order, so concurrent statements lock in one order.
 * Only the kinds present get a CTE: each CTE costs PostgreSQL time even when it writes nothing.
 *
 * The rollup is not upserted here (ADR 0012): the exact change each row makes is appended to
 * `engagement_member_day_deltas` — an updated record or reaction returns its previous values (`prev_*`,
 * set from the old row by the update itself), so it appends −1 at the old time and +1 at the new one.
 * `db/member-day-deltas.ts` folds the deltas into `engagement_member_days`.
 *
 * @param factsParam - the parameter (e.g. `$2`) holding the JSON object built by `encodeMessageFacts`.
 * @param source - a condition on `f.ev` (the event id of a fact) selecting the facts to write.
 * @param present - the kinds the facts object holds; at least one must be true.
 * @throws Error when no kind is present (there would be no statement to write).
 */
export function messageReadModelCtes(
  factsParam: string,
  source: string,
  present: PresentFactKinds
): MessageReadModelCtes {
  const ctes: string[] = [];
  if (present.m) ctes.push(recordsCte(factsParam, source));
  if (present.e) ctes.push(editsCte(factsParam, source));
  if (present.v) ctes.push(revokesCte(factsParam, source));
  if (present.x) ctes.push(reactionsCte(factsParam, source));
  if (ctes.length === 0) throw new Error('messageReadModelCtes needs at least one kind of fact');
  if (present.m || present.x) ctes.push(deltasCte(present));
  const read = [
    present.m || present.x ? 'wa_member_day_deltas' : null,
    present.v ? 'wa_revokes' : null,
    present.e ? 'wa_edits' : null,
  ].filter((name): name is string => name !== null);
  return {
    sql: ctes.join(','),
    written: `${read.map((name) => `(SELECT count(*) FROM ${name})`).join(' + ')} >= 0`,
    variant: (['m', 'e', 'v', 'x'] as const).filter((kind) => present[kind]).join(''),
  };
}

const recordsCte = (factsParam: string, source: string): string => `
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
    RETURNING chat_jid, is_message, sender_id, sent_at, reply_to_id, prev_is_message, prev_sender_id, prev_sent_at, prev_is_reply)`;

const editsCte = (factsParam: string, source: string): string => `
  wa_edits AS (
    INSERT INTO whatsapp_message_edits (chat_jid, target_id, edited_at)
    SELECT DISTINCT f.c, f.t, f.a
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'e') AS f(ev uuid, c text, t text, a timestamptz)
     WHERE ${source}
     ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING
    RETURNING 1)`;

const revokesCte = (factsParam: string, source: string): string => `
  wa_revokes AS (
    INSERT INTO whatsapp_message_revokes AS t (chat_jid, target_id, deleted_at)
    SELECT f.c, f.t, min(f.a)
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'v') AS f(ev uuid, c text, t text, a timestamptz)
     WHERE ${source}
     GROUP BY f.c, f.t ORDER BY f.c, f.t
    ON CONFLICT (chat_jid, target_id) DO UPDATE SET deleted_at = excluded.deleted_at
    WHERE excluded.deleted_at < t.deleted_at
    RETURNING 1)`;

const reactionsCte = (factsParam: string, source: string): string => `
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
    RETURNING chat_jid, reactor_id, text, reacted_at, prev_text, prev_reacted_at)`;

function deltasCte(present: PresentFactKinds): string {
  const sources: string[] = [];
  if (present.m)
    sources.push(
      `SELECT chat_jid, sender_id, sent_at, 1, (reply_to_id IS NOT NULL)::int, 0
         FROM wa_records WHERE is_message AND sender_id IS NOT NULL`,
      `SELECT chat_jid, prev_sender_id, prev_sent_at, -1, -(prev_is_reply::int), 0
         FROM wa_records WHERE prev_is_message AND prev_sender_id IS NOT NULL`
    );
  if (present.x)
    sources.push(
      `SELECT chat_jid, reactor_id, reacted_at, 0, 0, 1 FROM wa_reactions WHERE text <> ''`,
      `SELECT chat_jid, reactor_id, prev_reacted_at, 0, 0, -1 FROM wa_reactions WHERE prev_text <> ''`
    );
  return `
  wa_member_day_deltas AS (
    INSERT INTO engagement_member_day_deltas (group_jid, participant_key, at, messages, replies, reactions_given)
    ${sources.join('\n    UNION ALL\n    ')}
    RETURNING 1)`;
}
