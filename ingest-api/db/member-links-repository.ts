import type pg from 'pg';

/** One row of `whatsapp_member_links` (issue #11 item 3). */
export interface MemberLink {
  participantId: string;
  memberId: string;
  source: string;
  linkedAt: Date;
}

/** Thrown when a link has a blank participant or member id: nothing of the batch is written. */
export class InvalidMemberLinkError extends Error {
  override readonly name = 'InvalidMemberLinkError';
}

/**
 * Links participants (LID or phone JID) to community member ids (for example Discord user ids),
 * replacing an earlier link of the same participant. All rows in one statement, so a CSV import is
 * all or nothing. Ids are stored trimmed; a blank one is refused here, whatever the caller, because
 * every participant linked to '' would become one person in the engagement views (fresh-user defect).
 *
 * @returns how many links were written.
 * @throws InvalidMemberLinkError for a blank participant or member id (before anything is written);
 *   pg.DatabaseError when a value is refused (e.g. longer than 255 characters).
 */
export async function linkMembers(
  pool: pg.Pool,
  rawLinks: readonly { participantId: string; memberId: string }[],
  source: string
): Promise<number> {
  const links = rawLinks.map((link) => ({ participantId: link.participantId.trim(), memberId: link.memberId.trim() }));
  const blank = links.find((link) => link.participantId === '' || link.memberId === '');
  if (blank)
    throw new InvalidMemberLinkError(
      blank.participantId === ''
        ? 'a participant id is required, got a blank one'
        : `a member id is required for ${blank.participantId}, got a blank one`
    );
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

/**
 * Whether the lake has seen this JID as a participant (a `whatsapp_participants` row or a LID alias).
 * A link made before the participant's first activity is legitimate; the CLI only warns.
 */
export async function isParticipantSeen(pool: pg.Pool, jid: string): Promise<boolean> {
  const result = await pool.query<{ seen: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM whatsapp_participants WHERE $1 IN (id, lid, phone_jid))
         OR EXISTS (SELECT 1 FROM whatsapp_lid_aliases WHERE $1 IN (lid, phone_jid)) AS seen`,
    [jid]
  );
  return result.rows[0]?.seen ?? false;
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
