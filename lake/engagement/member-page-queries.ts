import type pg from 'pg';
import { PHONE_LIKE_NAME_PATTERN, phoneLikeNameDigitsSql, phoneLikeNameSql } from '../../common/phone-like-name.js';
import { canonicalPersonJid, phoneDigitsOfJid, phoneDigitsOfNumber } from '../../common/whatsapp-jid.js';
import { InvertedReportRangeError } from '../errors.js';
import { inTransaction } from '../pool.js';
import { readAtSnapshotSideBySide } from '../snapshot-readers.js';
import { assertGroupInLake } from './engagement-report-queries.js';
import { epochDay, levelMonths } from './report-presence.js';
import { catchUpEngagementRollup } from './rollup-catch-up.js';

/** What the dashboard's member page covers (ADR 0025): one person, a range of local days, one group or all. */
export interface MemberPageOptions {
  /** A participant JID (LID or phone JID, canonical) of the person. */
  participantId: string;
  groupJid: string | null;
  /** First local day; null = 89 days before `to`. */
  from: string | null;
  /** Last local day; null = the day of the lake's last message (today when it has none). */
  to: string | null;
}

/** A participant as the pages name it (ADR 0020's display name). */
export interface NamedParticipant {
  participantId: string;
  displayName: string;
  /** Whether `displayName` is a phone number: the pages mask it. */
  displayNameIsPhone: boolean;
}

/** Everything the member page shows about one person (docs/engagement.md "Dashboard"). */
export interface MemberPage {
  /** The range the page covers (the defaults filled in). */
  from: string;
  to: string;
  /** The lake's engagement time zone: days are its days, and every time (`firstSeenAt`, `sentAt`) is its wall clock. */
  timeZone: string;
  personKey: string;
  memberId: string | null;
  displayName: string;
  displayNameIsPhone: boolean;
  /** The person's participants: linked to the same member id, or LIDs of one succession (ADR 0025). */
  participants: (NamedParticipant & { phoneJid: string | null; succeededBy: string | null })[];
  /** Push and business names seen, first and last seen as `YYYY-MM-DD HH:MM` in `timeZone`. */
  names: { participantId: string; kind: string; name: string; firstSeenAt: string; lastSeenAt: string }[];
  groups: {
    groupJid: string;
    subject: string | null;
    role: string | null;
    joinedAt: string | null;
    leftAt: string | null;
    messages: number;
    replies: number;
    reactionsGiven: number;
    activeDays: number;
  }[];
  days: { day: string; messages: number; replies: number; reactionsGiven: number }[];
  /** The person's level per month of the range (`engagement_member_levels`), with its movement. */
  levels: { month: string; level: number | null; levelName: string | null; movement: string }[];
  /** Replies and mentions between the person and each other participant (`engagement_reply_edges`): the
   * {@link MEMBER_PAGE_LIST_LIMIT} busiest. */
  replies: (NamedParticipant & {
    repliesGiven: number;
    mentionsGiven: number;
    repliesReceived: number;
    mentionsReceived: number;
  })[];
  /** How many participants the person replied to, mentioned or heard from in the range (all, not only those listed). */
  replyPartnersTotal: number;
  /** Conversations the person started (`engagement_first_responses`). */
  conversations: { started: number; answered: number; medianMinutes: number | null };
  /** The person's latest {@link MEMBER_PAGE_LIST_LIMIT} questions and first messages nobody answered within 24 h (`engagement_unanswered`); `sentAt` as `YYYY-MM-DD HH:MM` in `timeZone`. */
  unanswered: { groupJid: string; messageId: string; sentAt: string; isQuestion: boolean; isNewcomerFirst: boolean }[];
  /** How many unanswered messages the person has in the range (all, not only those listed). */
  unansweredTotal: number;
}

/** The most reply partners and unanswered messages the member page lists; it gives the totals beside them. */
export const MEMBER_PAGE_LIST_LIMIT = 20;

// The person of a participant: its phone's owner LID, then whatsapp_person_identities (succession, member link).
const PERSON_SQL = `
  WITH asked AS (
    SELECT COALESCE((SELECT lid FROM whatsapp_phone_owners WHERE phone_jid = $1), $1)::varchar AS id),
  person AS (
    SELECT COALESCE(i.person_key, a.id) AS person_key, i.member_id FROM asked a
      LEFT JOIN whatsapp_person_identities i ON i.participant_id = a.id),
  ids AS (
    SELECT id AS participant_id FROM asked
    UNION SELECT i.participant_id FROM whatsapp_person_identities i JOIN person p USING (person_key))
  SELECT p.person_key AS "personKey", p.member_id AS "memberId", ids.participant_id AS "participantId",
         COALESCE(n.display_name, ids.participant_id) AS "displayName",
         COALESCE(n.display_name_source = 'phone', false) AS "displayNameIsPhone", n.phone_jid AS "phoneJid",
         s.successor_lid AS "succeededBy", EXISTS (SELECT 1 FROM whatsapp_participants w WHERE w.id = ids.participant_id)
           OR EXISTS (SELECT 1 FROM whatsapp_message_records r WHERE r.sender_id = ids.participant_id) AS "isKnown"
    FROM ids CROSS JOIN person p
    LEFT JOIN whatsapp_participant_display_names n ON n.participant_id = ids.participant_id
    LEFT JOIN whatsapp_lid_successions s ON s.lid = ids.participant_id
   ORDER BY (n.display_name_source IN ('member', 'push', 'business')) DESC, ids.participant_id = p.person_key DESC,
            ids.participant_id`;

// The person's member-days (of the group asked, else all) from three months before the range's first month (for its
// levels) to its end: read by participant key ($2: the person's participants and the phones they own) through the
// rollup's key index, and kept to the rows whose person is this one, as `engagement_member_activity_days` maps them.
const LOAD_PERSON_DAYS_SQL = `
  CREATE TEMP TABLE member_page_days ON COMMIT DROP AS
  SELECT d.group_jid, d.day, d.messages, d.replies, d.reactions_given
    FROM engagement_member_day_totals d
    LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = d.participant_key
    LEFT JOIN whatsapp_person_identities i ON i.participant_id = COALESCE(o.lid, d.participant_key)
   WHERE d.participant_key = ANY ($2::text[]) AND COALESCE(i.person_key, o.lid, d.participant_key) = $1
     AND d.day BETWEEN (date_trunc('month', $3::date) - interval '3 months')::date AND $4::date
     AND ($5::text IS NULL OR d.group_jid = $5)`;

const GROUPS_SQL = `
  WITH activity AS (
    SELECT group_jid, sum(messages)::int AS messages, sum(replies)::int AS replies,
           sum(reactions_given)::int AS reactions_given, count(DISTINCT day)::int AS active_days
      FROM member_page_days WHERE day BETWEEN $2 AND $3 GROUP BY 1),
  memberships AS (
    SELECT DISTINCT ON (group_jid) group_jid, role, joined_at, left_at FROM whatsapp_group_memberships
     WHERE participant_id = ANY($1) AND ($4::text IS NULL OR group_jid = $4)
     ORDER BY group_jid, left_at IS NULL DESC, joined_at DESC NULLS LAST)
  SELECT group_jid AS "groupJid", g.subject, m.role, m.joined_at::text AS "joinedAt", m.left_at::text AS "leftAt",
         COALESCE(a.messages, 0) AS messages, COALESCE(a.replies, 0) AS replies,
         COALESCE(a.reactions_given, 0) AS "reactionsGiven", COALESCE(a.active_days, 0) AS "activeDays"
    FROM activity a FULL JOIN memberships m USING (group_jid)
    LEFT JOIN whatsapp_groups g ON g.jid = group_jid
   ORDER BY messages DESC, 1`;

// The person's replies and mentions given and received (`engagement_reply_edges`' rules), read from the reply and
// mention links (ADR 0031) through their indexes: given by a sender key of the person ($5: its participants and the
// phones they own), received as a quoted participant or mention of one of those keys, or as a reply in a group the
// person ever wrote in ($6) whose quoted message is theirs. The local-day filter is exact; the bound on `sent_at` a
// day wider either side (any zone is within 14 h of UTC) lets the scans use the indexes by time.
const REPLIES_SQL = `
  WITH links AS MATERIALIZED (
    SELECT * FROM engagement_message_links
     WHERE sent_at >= $2::date - 1 AND sent_at < $3::date + 2 AND ($4::text IS NULL OR group_jid = $4)
       AND (sender_key = ANY ($5) OR target_key = ANY ($5) OR (kind = 'reply' AND group_jid = ANY ($6)))),
  edges AS (
    SELECT l.group_jid, l.message_id, COALESCE(so.lid, l.sender_key) AS sender_id, l.sent_at, l.kind,
           CASE WHEN l.kind = 'reply' THEN COALESCE(tw.lid, t.sender_id, qo.lid, l.target_key)
                ELSE COALESCE(qo.lid, l.target_key) END AS target_participant_id
      FROM links l
      LEFT JOIN whatsapp_phone_owners so ON so.phone_jid = l.sender_key
      LEFT JOIN LATERAL (
            SELECT a.sender_id FROM whatsapp_message_records_attributed a
             WHERE l.kind = 'reply' AND a.chat_jid = l.group_jid AND a.message_id = l.target_message_id AND a.is_message
            OFFSET 0) t ON true
      LEFT JOIN whatsapp_phone_owners tw ON tw.phone_jid = t.sender_id
      LEFT JOIN whatsapp_phone_owners qo ON qo.phone_jid = l.target_key
     WHERE (l.sent_at AT TIME ZONE wa_engagement_time_zone())::date BETWEEN $2 AND $3),
  counted AS (
    SELECT group_jid, message_id, sender_id, sent_at, kind, target_participant_id FROM edges WHERE kind = 'reply'
    UNION ALL
    SELECT DISTINCT group_jid, message_id, sender_id, sent_at, kind, target_participant_id FROM edges
     WHERE kind = 'mention'),
  edge_counts AS (
    SELECT target_participant_id AS other, (kind = 'reply')::int AS rg, (kind = 'mention')::int AS mg, 0 AS rr,
           0 AS mr
      FROM counted WHERE sender_id = ANY($1)
    UNION ALL
    SELECT sender_id, 0, 0, (kind = 'reply')::int, (kind = 'mention')::int FROM counted
     WHERE target_participant_id = ANY($1))
  SELECT e.other AS "participantId", COALESCE(n.display_name, e.other) AS "displayName",
         COALESCE(n.display_name_source = 'phone', false) AS "displayNameIsPhone",
         sum(rg)::int AS "repliesGiven", sum(mg)::int AS "mentionsGiven", sum(rr)::int AS "repliesReceived",
         sum(mr)::int AS "mentionsReceived", (count(*) OVER ())::int AS total
    FROM edge_counts e LEFT JOIN whatsapp_participant_display_names n ON n.participant_id = e.other
   WHERE e.other IS NOT NULL AND e.other <> ALL($1)
   GROUP BY 1, 2, 3 ORDER BY sum(rg + mg + rr + mr) DESC, 1 LIMIT ${String(MEMBER_PAGE_LIST_LIMIT)}`;

// The lake's last message: the latest of each group's, read backwards through the (chat_jid, sent_at) index from the
// groups the index holds (each found by one index probe), instead of reading every message.
const LAST_MESSAGE_SQL = `
  WITH RECURSIVE chats AS (
    SELECT min(chat_jid) AS jid FROM whatsapp_message_records
    UNION ALL
    SELECT (SELECT min(r.chat_jid) FROM whatsapp_message_records r WHERE r.chat_jid > c.jid) FROM chats c
     WHERE c.jid IS NOT NULL),
  last_message AS (
    SELECT max((SELECT max(r.sent_at) FROM whatsapp_message_records r WHERE r.chat_jid = c.jid AND r.is_message)) AS at
      FROM chats c WHERE c.jid IS NOT NULL)`;

// The person's conversations in each group they wrote in, one equality per group: PostgreSQL carries an equality
// with a value (not an `= ANY` list) across the view's outer joins, so each group's responses are computed alone.
const CONVERSATIONS_SQL = (groups: number): string => `
  SELECT count(*)::int AS started, count(first_response_at)::int AS answered,
         (percentile_cont(0.5) WITHIN GROUP (ORDER BY response_seconds) / 60.0)::float8 AS "medianMinutes"
    FROM (${Array.from(
      { length: groups },
      (_, i) => `SELECT first_response_at, response_seconds FROM engagement_first_responses
                  WHERE sender_id = ANY($1) AND day BETWEEN $2 AND $3 AND group_jid = $${String(i + 4)}`
    ).join(' UNION ALL ')}) conversations`;

// The person's unanswered messages: `engagement_unanswered` reads its candidates per group and local day, so naming
// the groups and the days the person wrote in ($4, $5: from member_page_days) reads those days alone.
const UNANSWERED_SQL = `
  SELECT group_jid AS "groupJid", message_id AS "messageId",
         to_char(sent_at AT TIME ZONE wa_engagement_time_zone(), 'YYYY-MM-DD HH24:MI') AS "sentAt",
         is_question AS "isQuestion", is_newcomer_first AS "isNewcomerFirst", (count(*) OVER ())::int AS total
    FROM engagement_unanswered
   WHERE sender_id = ANY ($1) AND day BETWEEN $2 AND $3 AND group_jid = ANY ($4) AND day = ANY ($5)
   ORDER BY sent_at DESC LIMIT ${String(MEMBER_PAGE_LIST_LIMIT)}`;

/** A row of a list the page shows in part, with the count of the whole list. */
type Listed<T> = T & { total: number };

/** The rows of a list shown in part without their `total`, and that total (0 for no rows). */
function splitTotal<T extends object>(rows: readonly Listed<T>[]): { rows: T[]; total: number } {
  const listed = rows.map((row) => {
    const copy: Partial<Listed<T>> = { ...row };
    delete copy.total;
    return copy as T;
  });
  return { rows: listed, total: rows[0]?.total ?? 0 };
}

interface PersonRow extends NamedParticipant {
  personKey: string;
  memberId: string | null;
  phoneJid: string | null;
  succeededBy: string | null;
  isKnown: boolean;
}

/**
 * Reads the member page of the person a participant belongs to (ADR 0025) in one repeatable-read
 * transaction. Null when the lake has never seen the participant (nor any participant of its person).
 * @throws UnknownReportGroupError when a group is asked that the lake has never seen (`assertGroupInLake`).
 * @throws InvertedReportRangeError when the first day falls after the last (`from` after the default last day).
 * @throws pg.DatabaseError when a query fails.
 */
export async function readMemberPage(pool: pg.Pool, options: MemberPageOptions): Promise<MemberPage | null> {
  await catchUpEngagementRollup(pool);
  return inTransaction(
    pool,
    async (client) => {
      const people = (await client.query<PersonRow>(PERSON_SQL, [options.participantId])).rows;
      const [person] = people;
      if (!person || !people.some((row) => row.isKnown)) return null;
      const ids = people.map((row) => row.participantId);
      const { groupJid } = options;
      if (groupJid !== null) await assertGroupInLake(client, groupJid);
      const range = await client.query<{ from: string; to: string; tz: string }>(
        `${LAST_MESSAGE_SQL}, last AS (
         SELECT COALESCE($2::date, (SELECT (at AT TIME ZONE wa_engagement_time_zone())::date FROM last_message),
                        (now() AT TIME ZONE wa_engagement_time_zone())::date) AS day)
       SELECT to_char(COALESCE($1::date, day - 89), 'YYYY-MM-DD') AS from, to_char(day, 'YYYY-MM-DD') AS to,
              wa_engagement_time_zone() AS tz
         FROM last`,
        [options.from, options.to]
      );
      const { from, to, tz } = range.rows[0] ?? { from: '', to: '', tz: 'UTC' };
      if (from > to) throw new InvertedReportRangeError(from, to, 'to');
      const q = async <T extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<T[]> =>
        (await client.query<T>(sql, values)).rows;
      // The person's conversation starts and questions of the range are messages of the groups they wrote in then:
      // naming those groups lets the views compute them alone instead of every group of the lake.
      const keys = await q<{ keys: string[] }>(
        `SELECT $1::text[] || COALESCE(array_agg(phone_jid::text), '{}') AS keys FROM whatsapp_phone_owners
          WHERE lid = ANY ($1)`,
        [ids]
      );
      const personKeys = keys[0]?.keys ?? ids;
      await client.query(LOAD_PERSON_DAYS_SQL, [person.personKey, personKeys, from, to, groupJid]);
      // Every group the person wrote in, at any time: a reply of the range may quote a message of any earlier day.
      const everWritten = await q<{ groups: string[] }>(
        `SELECT COALESCE(array_agg(DISTINCT group_jid), '{}') AS groups FROM engagement_member_day_totals
          WHERE participant_key = ANY ($1) AND messages > 0`,
        [personKeys]
      );
      // The groups and days the person wrote in during the range: their conversation starts and questions are
      // messages of those groups and days.
      const written = await q<{ groups: string[]; days: string[] }>(
        `SELECT COALESCE(array_agg(DISTINCT group_jid), '{}') AS groups,
                COALESCE(array_agg(DISTINCT to_char(day, 'YYYY-MM-DD')), '{}') AS days
           FROM member_page_days WHERE day BETWEEN $1 AND $2 AND messages > 0`,
        [from, to]
      );
      const groupsWritten = written[0]?.groups ?? [];
      // No group written in: one branch whose `group_jid = NULL` matches nothing.
      const conversationGroups: (string | null)[] = groupsWritten.length > 0 ? groupsWritten : [null];
      // The replies, the conversations and the unanswered list read no temporary table: they run side by side on
      // this transaction's snapshot, each on a client of its own while the pool has one free.
      const [replies = [], conversations = [], unanswered = []] = await readAtSnapshotSideBySide<
        [Listed<MemberPage['replies'][number]>, MemberPage['conversations'], Listed<MemberPage['unanswered'][number]>]
      >(pool, client, [
        { sql: REPLIES_SQL, values: [ids, from, to, groupJid, personKeys, everWritten[0]?.groups ?? []] },
        { sql: CONVERSATIONS_SQL(conversationGroups.length), values: [ids, from, to, ...conversationGroups] },
        { sql: UNANSWERED_SQL, values: [ids, from, to, groupsWritten, written[0]?.days ?? []] },
      ]);
      const page: MemberPage = {
        from,
        to,
        timeZone: tz,
        personKey: person.personKey,
        memberId: person.memberId,
        displayName: person.memberId !== null && person.displayNameIsPhone ? person.memberId : person.displayName,
        displayNameIsPhone: person.memberId === null && person.displayNameIsPhone,
        participants: people.map(({ participantId, displayName, displayNameIsPhone, phoneJid, succeededBy }) => ({
          participantId,
          displayName,
          displayNameIsPhone,
          phoneJid,
          succeededBy,
        })),
        names: await q(
          `SELECT participant_id AS "participantId", kind, name,
                to_char(first_seen_at AT TIME ZONE wa_engagement_time_zone(), 'YYYY-MM-DD HH24:MI') AS "firstSeenAt",
                to_char(last_seen_at AT TIME ZONE wa_engagement_time_zone(), 'YYYY-MM-DD HH24:MI') AS "lastSeenAt"
           FROM whatsapp_participant_names WHERE participant_id = ANY($1) ORDER BY last_seen_at DESC, name`,
          [ids]
        ),
        groups: await q(GROUPS_SQL, [ids, from, to, groupJid]),
        days: await q(
          `SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(messages)::int AS messages, sum(replies)::int AS replies,
                sum(reactions_given)::int AS "reactionsGiven"
           FROM member_page_days WHERE day BETWEEN $1 AND $2
          GROUP BY day ORDER BY day`,
          [from, to]
        ),
        levels: await readPersonLevels(client, person.personKey, { from, to }),
        replies: splitTotal(replies).rows,
        replyPartnersTotal: splitTotal(replies).total,
        conversations: conversations[0] ?? {
          started: 0,
          answered: 0,
          medianMinutes: null,
        },
        unanswered: splitTotal(unanswered).rows,
        unansweredTotal: splitTotal(unanswered).total,
      };
      return page;
    },
    'BEGIN ISOLATION LEVEL REPEATABLE READ'
  );
}

const LEVEL_NAMES = ['advocate', 'contributor', 'participant', 'explorer'] as const;

/** The person's level per month: the report's level rule (report-presence.ts) over this person's days only. */
async function readPersonLevels(
  client: pg.PoolClient,
  personKey: string,
  options: { from: string; to: string }
): Promise<MemberPage['levels']> {
  const days = await client.query<{ day: string }>(
    `SELECT DISTINCT to_char(day, 'YYYY-MM-DD') AS day FROM member_page_days WHERE day <= $1`,
    [options.to]
  );
  const people = new Map([[personKey, Int32Array.from(days.rows, (row) => epochDay(row.day)).sort()]]);
  const months = levelMonths(people, epochDay(options.from), epochDay(options.to));
  return months.map((month) => {
    const counts = [month.advocates, month.contributors, month.participants, month.explorers];
    const index = counts.findIndex((count) => count > 0);
    const movement = (['movedUp', 'held', 'movedDown', 'new', 'gone'] as const).find((key) => month[key] > 0);
    return {
      month: month.month,
      level: index < 0 ? null : index + 1,
      levelName: LEVEL_NAMES[index] ?? null,
      movement: movement === 'movedUp' ? 'up' : movement === 'movedDown' ? 'down' : (movement ?? 'none'),
    };
  });
}

/** A participant the member search found. */
export interface MemberSearchHit extends NamedParticipant {
  memberId: string | null;
}

/** The member search's answer: the first hits by name, and how many participants match in all. */
export interface MemberSearch {
  hits: MemberSearchHit[];
  total: number;
}

/**
 * Participants whose display name contains `text` (case-insensitive), or whose participant id or member id is
 * `text` (ADR 0025: the dashboard's member filter): the first `limit` by name, and the count of all that match.
 * A name the pages mask as a phone number (`display_name_source` 'phone', or a phone-like name,
 * common/phone-like-name.ts) and a phone JID match only the whole number, typed as a number (`phoneDigitsOfNumber`:
 * `+55 11 98765-4321` or `0055…`) or as the phone JID, never a run of its digits, so a masked number cannot be
 * guessed digit by digit; other push, member and business names and LIDs match any part.
 * @throws pg.DatabaseError when the query fails.
 */
export async function searchMembers(pool: pg.Pool, text: string, limit: number): Promise<MemberSearch> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const jid = canonicalPersonJid(text.trim());
  const digits = phoneDigitsOfNumber(text) ?? (jid === undefined ? undefined : phoneDigitsOfJid(jid));
  const isMasked = `(COALESCE(display_name_source = 'phone', false) OR ${phoneLikeNameSql('display_name', '$5')})`;
  const result = await pool.query<Listed<MemberSearchHit>>(
    `SELECT participant_id AS "participantId", display_name AS "displayName",
            display_name_source = 'phone' AS "displayNameIsPhone", member_id AS "memberId",
            (count(*) OVER ())::int AS total
       FROM whatsapp_participant_display_names
      WHERE (display_name ILIKE $1 AND NOT ${isMasked})
         OR (${isMasked} AND ${phoneLikeNameDigitsSql('display_name')} = $4)
         OR participant_id = $2 OR member_id = $2 OR split_part(phone_jid, '@', 1) = $4
      ORDER BY display_name, participant_id LIMIT $3`,
    [pattern, text.trim(), limit, digits ?? null, PHONE_LIKE_NAME_PATTERN]
  );
  const { rows: hits, total } = splitTotal(result.rows);
  return { hits, total };
}

/** The groups the lake knows, by subject, for the dashboard's group filter. */
export async function listGroups(pool: pg.Pool): Promise<{ groupJid: string; subject: string | null }[]> {
  const result = await pool.query<{ groupJid: string; subject: string | null }>(
    `SELECT jid AS "groupJid", subject FROM whatsapp_groups ORDER BY subject NULLS LAST, jid`
  );
  return result.rows;
}
