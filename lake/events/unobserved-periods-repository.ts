import type pg from 'pg';
import { foldUnobservedPeriods } from '../projections/unobserved-periods.js';

/**
 * Recomputes `whatsapp_group_unobserved_periods` of one group from every stored membership fact
 * about the linked account there (issue #12 item 5, rule in `foldUnobservedPeriods`), and mirrors the
 * open period in `whatsapp_groups.unobserved_since` (null while the account is in the group).
 * Caller holds the group lock.
 */
export async function recomputeUnobservedPeriods(client: pg.ClientBase, groupJid: string): Promise<void> {
  await client.query('INSERT INTO whatsapp_groups (jid) VALUES ($1) ON CONFLICT (jid) DO NOTHING', [groupJid]);
  const { rows } = await client.query<{ event_id: string; at_ms: string; is_present: boolean; is_timed: boolean }>(
    `SELECT event_id, (extract(epoch FROM at) * 1000)::bigint AS at_ms, is_present, is_timed
       FROM whatsapp_membership_facts WHERE group_jid = $1 AND is_account`,
    [groupJid]
  );
  const periods = foldUnobservedPeriods(
    rows.map((row) => ({
      eventId: row.event_id,
      atMs: Number(row.at_ms),
      isPresent: row.is_present,
      role: null,
      isTimed: row.is_timed,
    }))
  );
  const open = periods.find((period) => period.endedAtMs === null);
  await client.query(
    `WITH gone AS (DELETE FROM whatsapp_group_unobserved_periods WHERE group_jid = $1),
          mark AS (UPDATE whatsapp_groups SET unobserved_since = $4::timestamptz, updated_at = now()
                    WHERE jid = $1 AND unobserved_since IS DISTINCT FROM $4::timestamptz)
     INSERT INTO whatsapp_group_unobserved_periods (group_jid, started_at, ended_at)
     SELECT $1, started_at, ended_at FROM unnest($2::timestamptz[], $3::timestamptz[]) AS p (started_at, ended_at)`,
    [
      groupJid,
      periods.map((period) => new Date(period.startedAtMs)),
      periods.map((period) => (period.endedAtMs === null ? null : new Date(period.endedAtMs))),
      open ? new Date(open.startedAtMs) : null,
    ]
  );
}
