import type pg from 'pg';
import { dayText, type MemberPresence, readPeople, readPresence } from './report-presence.js';

/**
 * The report's reads over all groups (ADR 0032): people's days from the month rows summed across groups
 * (`engagement_key_month_parts`), each group's active people from the member sums of the range the report has loaded
 * already, the presence of the cohort members only, and the membership changes read once into a temp table for
 * every figure that counts joins and leaves.
 */

type Db = pg.ClientBase;

// A participant key's months across groups, as `month:mask` pairs, mapped to its person as
// `engagement_member_activity_days` maps it (phone owner, then person identity).
const PEOPLE_SQL = `
  SELECT COALESCE(i.person_key, o.lid, p.participant_key) AS "personKey", p.months
    FROM (SELECT participant_key,
                 string_agg((extract(year FROM month)::int * 12 + extract(month FROM month)::int - 1)::text || ':' ||
                            days::text, ',') AS months
            FROM engagement_key_month_parts
           WHERE month BETWEEN date_trunc('month', $1::date) AND $2::date
           GROUP BY 1) p
    LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = p.participant_key
    LEFT JOIN whatsapp_person_identities i ON i.participant_id = COALESCE(o.lid, p.participant_key)`;

/** Each person's active days of `first`..`last` (epoch days) in any group, sorted. */
export async function readPeopleAcrossGroups(
  client: Db,
  first: number,
  last: number
): Promise<Map<string, Int32Array>> {
  const rows = await client.query<{ personKey: string; months: string }>(PEOPLE_SQL, [dayText(first), dayText(last)]);
  return readPeople(rows.rows, first, last);
}

/**
 * Per group, the people active in it in the range: the distinct persons of `report_member_sums` (its rows are the
 * group's keys with activity in the range, loadMemberSums).
 */
export async function readActivePeopleByGroup(client: Db): Promise<Map<string, number>> {
  const rows = await client.query<{ group_jid: string; active: number }>(
    `SELECT group_jid, count(*)::int AS active
       FROM (SELECT s.group_jid, COALESCE(i.person_key, o.lid, s.participant_key) AS person_key
               FROM (SELECT DISTINCT group_jid, participant_key FROM report_member_sums) s
               LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = s.participant_key
               LEFT JOIN whatsapp_person_identities i ON i.participant_id = COALESCE(o.lid, s.participant_key)
              GROUP BY 1, 2) people
      GROUP BY 1`
  );
  return new Map(rows.rows.map((row) => [row.group_jid, row.active]));
}

// The members of `report_cohorts` and their months in the groups they joined, as the presence query reads them.
const COHORT_PRESENCE_SQL = `
  SELECT p.group_jid AS "groupJid", p.participant_id AS "participantId", p.participant_id AS "personKey",
         string_agg((extract(year FROM p.month)::int * 12 + extract(month FROM p.month)::int - 1)::text || ':' ||
                    p.days::text, ',') AS months
    FROM (SELECT m.group_jid, COALESCE(o.lid, m.participant_key) AS participant_id, m.month, m.days
            FROM engagement_member_month_parts m
            LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = m.participant_key
           WHERE m.month BETWEEN date_trunc('month', $1::date) AND $2::date) p
   WHERE (p.group_jid, p.participant_id) IN (SELECT group_jid, participant_id FROM report_cohorts)
   GROUP BY 1, 2`;

/** The cohort members of `report_cohorts` with their active days of `first`..`last` in the group they joined. */
export async function readCohortPresence(client: Db, first: number, last: number): Promise<MemberPresence[]> {
  const rows = await client.query<Parameters<typeof readPresence>[0][number]>(COHORT_PRESENCE_SQL, [
    dayText(first),
    dayText(last),
  ]);
  return readPresence(rows.rows, first, last);
}

/**
 * Loads `report_changes`: the scope's joins and leaves (`engagement_membership_changes`) with their local day, read
 * once for the totals of both periods, the joins per day and the cohorts.
 */
export async function loadMembershipChanges(client: Db, timeZone: string, groupJid: string | null): Promise<void> {
  await client.query(
    `CREATE TEMP TABLE report_changes ON COMMIT DROP AS
     SELECT group_jid, participant_id, at, (at AT TIME ZONE $1)::date AS day, change
       FROM engagement_membership_changes WHERE $2::text IS NULL OR group_jid = $2`,
    [timeZone, groupJid]
  );
}
