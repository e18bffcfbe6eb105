import type pg from 'pg';
import { MEMBER_DAY_FOLD_LOCK_CLASS } from './projection-locks.js';

/**
 * The one statement that adds rows into the `engagement_member_days` rollup (ADR 0012): `rows` is a
 * SELECT of (group_jid, participant_key, day, messages, replies, reactions_given); a row whose key is
 * already there is added to it, the others are inserted. Used by the fold and by `wa-lake forget`'s merge
 * (the 1765000000000 migration keeps its own frozen copy: migrations never import app code).
 */
export function addIntoMemberDaysSql(rows: string): string {
  return `
    INSERT INTO engagement_member_days AS t (group_jid, participant_key, day, messages, replies, reactions_given)
    ${rows}
    ON CONFLICT (group_jid, participant_key, day) DO UPDATE SET
      messages = t.messages + excluded.messages, replies = t.replies + excluded.replies,
      reactions_given = t.reactions_given + excluded.reactions_given`;
}

// One statement, autocommit: the deltas it deletes are exactly the ones it adds, so each delta is counted
// once whatever fails. The try-lock lets one fold run at a time (another replica's fold, or `wa-lake
// forget`, which folds and then re-keys rows under it); a fold that does not get it does nothing and the
// next tick retries. A session holding the lock already (forget) gets it again.
const FOLD_SQL = `
  WITH fold_lock AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(${String(MEMBER_DAY_FOLD_LOCK_CLASS)}, 0) AS held),
  moved AS (
    DELETE FROM engagement_member_day_deltas WHERE (SELECT held FROM fold_lock)
    RETURNING group_jid, participant_key, (at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day,
              messages, replies, reactions_given),
  folded AS (${addIntoMemberDaysSql(`
    SELECT group_jid, participant_key, day, sum(messages), sum(replies), sum(reactions_given)
      FROM moved GROUP BY 1, 2, 3
    HAVING sum(messages) <> 0 OR sum(replies) <> 0 OR sum(reactions_given) <> 0
     ORDER BY 1, 2, 3`)})
  SELECT count(*)::int AS deltas FROM moved`;

/**
 * Folds the rollup deltas the ingest statement appended (`engagement_member_day_deltas`, ADR 0012) into
 * `engagement_member_days`, each on its local day in the engagement time zone current now. The view
 * `engagement_member_day_totals` reads both, so readers see the same numbers before and after a fold.
 * Safe to run from several processes at once: one folds, the others return 0. Inside a transaction that
 * holds the fold lock (`wa-lake forget`), it folds and its effect commits with that transaction.
 *
 * @returns how many deltas were folded (0 when none, or when another fold holds the lock).
 * @throws pg.DatabaseError (or a connection error) as `pg` reports it.
 */
export async function foldMemberDayDeltas(queryable: pg.Pool | pg.ClientBase): Promise<number> {
  const result = await queryable.query<{ deltas: number }>({ name: 'wa_fold_member_day_deltas', text: FOLD_SQL });
  return result.rows[0]?.deltas ?? 0;
}

/**
 * Recounts `engagement_member_days` from the read model (after `wa-lake rebuild`, or when the engagement
 * time zone changes): the same numbers the deltas add up to, computed from scratch; pending deltas are
 * dropped, since the recount already holds what they describe.
 *
 * @throws pg.DatabaseError when a statement fails.
 */
export async function recountMemberDays(client: pg.ClientBase): Promise<void> {
  await client.query('TRUNCATE engagement_member_days, engagement_member_day_deltas');
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
