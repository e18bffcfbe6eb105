import type pg from 'pg';
import { findControlCharacter } from '../../common/control-character.js';
import { canonicalParticipantJid, InvalidParticipantIdentifierError } from '../../common/participant-identifier.js';

/** One row of `whatsapp_member_links`. */
export interface MemberLink {
  participantId: string;
  memberId: string;
  source: string;
  linkedAt: Date;
}

/**
 * Thrown when a link has a blank participant or member id, one too long, or a member id or name holding a control character:
 * nothing of the batch is written.
 */
export class InvalidMemberLinkError extends Error {
  override readonly name = 'InvalidMemberLinkError';
}

/** One link to write: a participant identifier (LID, phone JID or phone number) and a community member id. */
export interface MemberLinkRequest {
  participantId: string;
  memberId: string;
  /** The member's name (`members import`'s optional `name` column); absent keeps the name already stored. */
  name?: string;
}

/** A link as `linkMembers` wrote it, with the member id it replaced (null when the participant had no link). */
export interface WrittenMemberLink extends MemberLinkRequest {
  replacedMemberId: string | null;
  /** The name stored before (null when none, or no link). */
  replacedName: string | null;
}

/**
 * The key an exported message's sender counts under while no participant is known for its name (`name:Ana`,
 * ADR 0023), trimmed; undefined for anything else.
 */
function exportSenderKeyOf(participantId: string): string | undefined {
  const name = participantId.startsWith('name:') ? participantId.slice('name:'.length).trim() : '';
  return name === '' ? undefined : `name:${name}`;
}

/** The most characters a participant id, member id or member's name holds (their `varchar(255)` columns). */
export const MAX_MEMBER_LINK_CHARS = 255;

/**
 * Why a participant id, member id or name cannot be stored (longer than {@link MAX_MEMBER_LINK_CHARS} characters, counted as
 * PostgreSQL counts them; a member id or name holding a control character, which would split the rows of `members list`,
 * a CSV or a report, and in a CSV is the sign of a stray quote that joined the lines after it), or null.
 */
export function memberLinkTextProblem(field: 'participant_id' | 'member_id' | 'name', text: string): string | null {
  const length = [...text].length;
  if (length > MAX_MEMBER_LINK_CHARS)
    return `${field} has ${String(length)} characters, more than the ${String(MAX_MEMBER_LINK_CHARS)} a link holds`;
  const control = field === 'participant_id' ? null : findControlCharacter(text);
  if (control === null) return null;
  const what = field === 'name' ? 'a name' : 'a member id';
  return `${field} holds the control character ${control.codePoint} at character ${String(control.position)}; ${what} is one line of printable text`;
}

/** The links as stored: canonical participant JIDs, trimmed member ids. @throws as `linkMembers`. */
function canonicalLinks(requests: readonly MemberLinkRequest[]): MemberLinkRequest[] {
  return requests.map((request) => {
    const participantId = request.participantId.trim();
    const memberId = request.memberId.trim();
    if (participantId === '') throw new InvalidMemberLinkError('a participant id is required, got a blank one');
    if (memberId === '')
      throw new InvalidMemberLinkError(`a member id is required for ${participantId}, got a blank one`);
    const name = request.name?.trim();
    const problem = memberLinkTextProblem('member_id', memberId) ?? memberLinkTextProblem('name', name ?? '');
    if (problem !== null) throw new InvalidMemberLinkError(`${problem} (participant ${participantId})`);
    const canonical = exportSenderKeyOf(participantId) ?? canonicalParticipantJid(participantId, 'participant');
    const tooLong = memberLinkTextProblem('participant_id', canonical);
    if (tooLong !== null) throw new InvalidMemberLinkError(tooLong);
    return {
      participantId: canonical,
      memberId,
      ...(name ? { name } : {}),
    };
  });
}

/**
 * Links participants to community member ids (for example Discord user ids), replacing an earlier link
 * of the same participant. All rows in one statement, so a CSV import is all or nothing. The rules live
 * here, whatever the caller: a participant is stored as its canonical JID
 * (`canonicalParticipantJid`: the key the projections use, so `…@c.us` or a device suffix would never
 * match), a member id trimmed, and a blank one is refused, because every participant linked to '' would
 * become one person in the engagement views.
 *
 * @returns the links as written (canonical participant JIDs, trimmed member ids), in the order given, each with
 *   the member id it replaced, so a caller can say a link changed rather than replace it silently.
 * @throws InvalidMemberLinkError for a blank participant or member id or one (or a name) longer than 255 characters,
 *   a member id or name holding a control character, InvalidParticipantIdentifierError
 *   for a participant that is neither a LID, a phone JID nor a phone number (both before anything is
 *   written); pg.DatabaseError when a value is refused (e.g. one participant twice in the batch).
 */
export async function linkMembers(
  pool: pg.Pool,
  requests: readonly MemberLinkRequest[],
  source: string
): Promise<WrittenMemberLink[]> {
  const links = canonicalLinks(requests);
  if (links.length === 0) return [];
  // Every CTE reads the snapshot from before the upsert (which runs whether or not it is read), so `previous`
  // holds exactly the links it replaces.
  const previous = await pool.query<{ participant_id: string; member_id: string; name: string | null }>(
    `WITH wanted AS (SELECT p, m, n FROM unnest($1::text[], $2::text[], $4::text[]) AS l(p, m, n)),
     previous AS (SELECT participant_id, member_id, name FROM whatsapp_member_links
                   WHERE participant_id IN (SELECT p FROM wanted)),
     written AS (
       INSERT INTO whatsapp_member_links (participant_id, member_id, source, linked_at, name)
       SELECT p, m, $3, now(), n FROM wanted
       ON CONFLICT (participant_id) DO UPDATE SET member_id = excluded.member_id, source = excluded.source,
         linked_at = excluded.linked_at,
         name = CASE WHEN excluded.member_id = whatsapp_member_links.member_id
                     THEN COALESCE(excluded.name, whatsapp_member_links.name) ELSE excluded.name END
       RETURNING 1)
     SELECT participant_id, member_id, name FROM previous`,
    [
      links.map((link) => link.participantId),
      links.map((link) => link.memberId),
      source,
      links.map((link) => link.name ?? null),
    ]
  );
  const replaced = new Map(previous.rows.map((row) => [row.participant_id, row]));
  return links.map((link) => {
    const before = replaced.get(link.participantId);
    return { ...link, replacedMemberId: before?.member_id ?? null, replacedName: before?.name ?? null };
  });
}

/**
 * Whether the lake has seen this JID as a participant (a `whatsapp_participants` row or a LID alias), or this
 * `name:` key as the sender of an exported message.
 * A link made before the participant's first activity is legitimate; the CLI only warns.
 */
export async function isParticipantSeen(pool: pg.Pool, jid: string): Promise<boolean> {
  const result = await pool.query<{ seen: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM whatsapp_participants WHERE $1 IN (id, lid, phone_jid))
         OR EXISTS (SELECT 1 FROM whatsapp_lid_aliases WHERE $1 IN (lid, phone_jid))
         OR $1 LIKE 'name:%' AND EXISTS (SELECT 1 FROM whatsapp_export_messages WHERE participant_key = $1) AS seen`,
    [jid]
  );
  return result.rows[0]?.seen ?? false;
}

/** The participants of `jids` the lake has never seen (no participant row, no alias), in the order given. */
export async function findUnseenParticipants(pool: pg.Pool, jids: readonly string[]): Promise<string[]> {
  if (jids.length === 0) return [];
  const result = await pool.query<{ jid: string }>(
    `SELECT j.jid FROM unnest($1::text[]) WITH ORDINALITY AS j(jid, n)
      WHERE NOT EXISTS (SELECT 1 FROM whatsapp_participants p WHERE j.jid IN (p.id, p.lid, p.phone_jid))
        AND NOT EXISTS (SELECT 1 FROM whatsapp_lid_aliases a WHERE j.jid IN (a.lid, a.phone_jid))
      ORDER BY j.n`,
    [jids]
  );
  return result.rows.map((row) => row.jid);
}

/**
 * Removes the link of a participant, read by the rule of `linkMembers` (`canonicalParticipantJid`). A
 * link stored verbatim before that rule (e.g. `…@c.us`, or any string) is removed too when the input
 * matches it exactly, so no old link is left that `members unlink` cannot reach.
 *
 * @returns the participant ids whose link was removed (none when there was no link).
 * @throws InvalidParticipantIdentifierError when the input is not a participant and matches no stored link.
 */
export async function unlinkMember(pool: pg.Pool, participantId: string): Promise<string[]> {
  let canonical: string | undefined;
  let refusal: InvalidParticipantIdentifierError | undefined;
  try {
    canonical = canonicalParticipantJid(participantId, 'participant');
  } catch (err) {
    if (!(err instanceof InvalidParticipantIdentifierError)) throw err;
    refusal = err;
  }
  const result = await pool.query<{ participant_id: string }>(
    'DELETE FROM whatsapp_member_links WHERE participant_id = ANY($1::text[]) RETURNING participant_id',
    [[...new Set([participantId, participantId.trim(), canonical ?? participantId])]]
  );
  if (result.rows.length === 0 && refusal !== undefined) throw refusal;
  return result.rows.map((row) => row.participant_id).sort();
}

/** Every link, ordered by member id then participant id. */
export async function listMemberLinks(pool: pg.Pool): Promise<MemberLink[]> {
  const result = await pool.query<MemberLink>(
    `SELECT participant_id AS "participantId", member_id AS "memberId", source, linked_at AS "linkedAt"
       FROM whatsapp_member_links ORDER BY member_id, participant_id`
  );
  return result.rows;
}
