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
   * data-modifying CTEs that nothing reads — the last listed first — so every statement locks the read-model
   * tables in one order: reactions, revokes, edits, records.
   */
  written: string;
  /** Distinguishes the statement texts (e.g. `mx`), so each is prepared under a name of its own. */
  variant: string;
}

/**
 * SQL of the message read model: data-modifying CTEs that write the facts of many
 * events in one statement, set-based, with order-independent merge rules — the record with the
 * greatest (rank, time, event id) wins, edits are a set, a revoke keeps the earliest time, a reaction
 * the latest (time, event id). Rows are written in key order, so concurrent statements lock in one order.
 * Only the kinds present get a CTE: each CTE costs PostgreSQL time even when it writes nothing. Nothing is
 * written for the rollups: the engagement views count these tables when they are read (ADR 0013).
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
  const kinds = (['m', 'e', 'v', 'x'] as const).filter((kind) => present[kind]);
  if (kinds.length === 0) throw new Error('messageReadModelCtes needs at least one kind of fact');
  const ctes = { m: recordsCte, e: editsCte, v: revokesCte, x: reactionsCte };
  const names = { m: 'wa_records', e: 'wa_edits', v: 'wa_revokes', x: 'wa_reactions' };
  return {
    sql: kinds.map((kind) => ctes[kind](factsParam, source)).join(','),
    written: `${[...kinds]
      .reverse()
      .map((kind) => `(SELECT count(*) FROM ${names[kind]})`)
      .join(' + ')} >= 0`,
    variant: kinds.join(''),
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
      record_rank = excluded.record_rank, record_event_id = excluded.record_event_id
    WHERE (excluded.record_rank, excluded.sent_at, excluded.record_event_id) > (t.record_rank, t.sent_at, t.record_event_id)
    RETURNING 1)`;

const editsCte = (factsParam: string, source: string): string => `
  wa_edits AS (
    INSERT INTO whatsapp_message_edits (chat_jid, target_id, edited_at)
    SELECT DISTINCT f.c, f.t, f.a
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'e') AS f(ev uuid, c text, t text, a timestamptz)
     WHERE ${source}
     ORDER BY 1, 2, 3
    ON CONFLICT DO NOTHING
    RETURNING 1)`;

// The earliest time wins; the attribution (revoke id and target author, ADR 0019) is the one of the
// least revoke id stated, so any order of arrival keeps the same one.
const revokesCte = (factsParam: string, source: string): string => `
  wa_revokes AS (
    INSERT INTO whatsapp_message_revokes AS t (chat_jid, target_id, deleted_at, revoke_id, target_sender_id)
    SELECT f.c, f.t, min(f.a), min(f.r), (array_agg(f.s ORDER BY f.r) FILTER (WHERE f.r IS NOT NULL))[1]
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'v') AS f(ev uuid, c text, t text, a timestamptz, r text, s text)
     WHERE ${source}
     GROUP BY f.c, f.t ORDER BY f.c, f.t
    ON CONFLICT (chat_jid, target_id) DO UPDATE SET
      deleted_at = LEAST(t.deleted_at, excluded.deleted_at),
      revoke_id = CASE WHEN excluded.revoke_id < t.revoke_id OR t.revoke_id IS NULL THEN excluded.revoke_id ELSE t.revoke_id END,
      target_sender_id = CASE WHEN excluded.revoke_id < t.revoke_id OR t.revoke_id IS NULL
                              THEN excluded.target_sender_id ELSE t.target_sender_id END
    WHERE excluded.deleted_at < t.deleted_at OR excluded.revoke_id < t.revoke_id
       OR (t.revoke_id IS NULL AND excluded.revoke_id IS NOT NULL)
    RETURNING 1)`;

const reactionsCte = (factsParam: string, source: string): string => `
  wa_reactions AS (
    INSERT INTO whatsapp_message_reactions AS t (chat_jid, target_id, reactor_id, text, reacted_at, event_id)
    SELECT DISTINCT ON (f.c, f.t, f.r) f.c, f.t, f.r, f.x, f.a, f.ev
      FROM jsonb_to_recordset(${factsParam}::jsonb -> 'x') AS f(ev uuid, c text, t text, r text, x text, a timestamptz)
     WHERE ${source}
     ORDER BY f.c, f.t, f.r, f.a DESC, f.ev DESC
    ON CONFLICT (chat_jid, target_id, reactor_id) DO UPDATE SET
      text = excluded.text, reacted_at = excluded.reacted_at, event_id = excluded.event_id
    WHERE (excluded.reacted_at, excluded.event_id) > (t.reacted_at, t.event_id)
    RETURNING 1)`;
