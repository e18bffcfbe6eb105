import type pg from 'pg';

/** One row of `whatsapp_member_links` (issue #11 item 3). */
export interface MemberLink {
  participantId: string;
  memberId: string;
  source: string;
  linkedAt: Date;
}

/**
 * Links participants (LID or phone JID) to community member ids (for example Discord user ids),
 * replacing an earlier link of the same participant. All rows in one statement, so a CSV import is
 * all or nothing.
 *
 * @returns how many links were written.
 * @throws pg.DatabaseError when a value is refused (e.g. longer than 255 characters).
 */
export async function linkMembers(
  pool: pg.Pool,
  links: readonly { participantId: string; memberId: string }[],
  source: string
): Promise<number> {
  if (links.length === 0) return 0;
  const result = await pool.query(
    `INSERT INTO whatsapp_member_links (participant_id, member_id, source, linked_at)
     SELECT p, m, $3, now() FROM unnest($1::text[], $2::text[]) AS l(p, m)
     ON CONFLICT (participant_id) DO UPDATE SET member_id = excluded.member_id, source = excluded.source,
       linked_at = excluded.linked_at`,
    [links.map((link) => link.participantId), links.map((link) => link.memberId), source]
  );
  return result.rowCount ?? 0;
}

/** Removes the link of a participant. @returns true when there was one. */
export async function unlinkMember(pool: pg.Pool, participantId: string): Promise<boolean> {
  const result = await pool.query('DELETE FROM whatsapp_member_links WHERE participant_id = $1', [participantId]);
  return (result.rowCount ?? 0) > 0;
}

/** Every link, ordered by member id then participant id. */
export async function listMemberLinks(pool: pg.Pool): Promise<MemberLink[]> {
  const result = await pool.query<MemberLink>(
    `SELECT participant_id AS "participantId", member_id AS "memberId", source, linked_at AS "linkedAt"
       FROM whatsapp_member_links ORDER BY member_id, participant_id`
  );
  return result.rows;
}
