import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReportCsv } from '../../../cli/report/write-csv.js';
import { forgetParticipantInLake, linkMembers, readEngagementReport, rebuildProjections } from '../../../lake/index.js';
import { loadEngagementCase } from '../../fixtures/engagement-cases/load-engagement-case.js';
import { useFreshLakes, type TestLake } from '../../helpers/lake-databases.js';

/**
 * ADR 0019: each case of "exact engagement numbers" from its smallest input (test/fixtures/engagement-cases/),
 * stored as the ingest API stores it, read back through the engagement views a BI tool reads.
 */
const lakes = useFreshLakes(11);

async function storeCase(lake: TestLake, name: string): Promise<void> {
  for (const { event_id, body } of loadEngagementCase(name).events) await lake.store(event_id, JSON.stringify(body));
}

const rows = async <T extends Record<string, unknown>>(
  lake: TestLake,
  sql: string,
  values: unknown[] = []
): Promise<T[]> => (await lake.pool.query<T>(sql, values)).rows;

describe('exact engagement numbers (ADR 0019)', () => {
  it('counts a member who also types on WhatsApp Web (device suffix) as one person (case 1)', async () => {
    const { lake } = lakes.at(0);
    await storeCase(lake, '01-device-suffix');
    expect(await rows(lake, `SELECT id, lid, phone_jid FROM whatsapp_participants ORDER BY id`)).toEqual([
      { id: '20000000000993@lid', lid: '20000000000993@lid', phone_jid: '5500000000993@s.whatsapp.net' },
    ]);
    expect(await rows(lake, `SELECT lid, phone_jid FROM whatsapp_lid_aliases`)).toEqual([
      { lid: '20000000000993@lid', phone_jid: '5500000000993@s.whatsapp.net' },
    ]);
    expect(await rows(lake, `SELECT DISTINCT sender_id FROM whatsapp_messages`)).toEqual([
      { sender_id: '20000000000993@lid' },
    ]);
    expect(
      await rows(
        lake,
        `SELECT sum(messages)::int AS messages, max(active_members) AS active FROM engagement_group_daily`
      )
    ).toEqual([{ messages: 2, active: 1 }]);
    await linkMembers(lake.pool, [{ participantId: '20000000000993@lid', memberId: 'discord:993' }], 'cli');
    expect(await rows(lake, `SELECT DISTINCT person_key FROM engagement_member_activity_days`)).toEqual([
      { person_key: 'discord:993' },
    ]);
  });

  it('counts one join and one leave when the hints of an offline flush come after the stubs (case 2)', async () => {
    const { lake } = lakes.at(1);
    await storeCase(lake, '02-late-hints');
    expect(
      await rows(lake, `SELECT participant_id, at, change FROM engagement_membership_changes ORDER BY at, change`)
    ).toEqual([
      { participant_id: '20000000000102@lid', at: new Date(1709564400_000), change: 'join' },
      { participant_id: '20000000000102@lid', at: new Date(1709650800_000), change: 'leave' },
    ]);
    expect(
      await rows(lake, `SELECT sum(joins)::int AS joins, sum(leaves)::int AS leaves FROM engagement_group_daily`)
    ).toEqual([{ joins: 1, leaves: 1 }]);
    expect(await rows(lake, `SELECT participant_id, joined_at, left_at FROM whatsapp_group_memberships`)).toEqual([
      { participant_id: '20000000000102@lid', joined_at: new Date(1709564400_000), left_at: new Date(1709650800_000) },
    ]);
  });

  it('counts a message deleted while the collector was offline for its author, not the admin who deleted it (case 3)', async () => {
    const { lake } = lakes.at(2);
    await storeCase(lake, '03-merged-offline-revoke');
    expect(
      await rows(lake, `SELECT message_id, sender_id, kind, sent_at, deleted_at, reaction_count FROM whatsapp_messages`)
    ).toEqual([
      {
        message_id: '3EB0C27000000000000301',
        sender_id: '20000000000302@lid',
        kind: 'revoked',
        sent_at: new Date(1709564400_000),
        deleted_at: new Date(1709571600_000),
        reaction_count: 1,
      },
    ]);
    expect(
      await rows(
        lake,
        `SELECT participant_id, messages, reactions_given, reactions_received, deletions FROM engagement_member_daily ORDER BY participant_id`
      )
    ).toEqual([
      { participant_id: '20000000000302@lid', messages: 1, reactions_given: 0, reactions_received: 1, deletions: 1 },
      { participant_id: '20000000000303@lid', messages: 0, reactions_given: 1, reactions_received: 0, deletions: 0 },
    ]);
  });

  it("counts the account's own announcements and reactions for the account (case 5)", async () => {
    const { lake } = lakes.at(4);
    await storeCase(lake, '05-own-messages');
    const ACCOUNT = '5500000000500@s.whatsapp.net';
    expect(
      await rows(lake, `SELECT message_id, sender_id, reaction_count FROM whatsapp_messages ORDER BY message_id`)
    ).toEqual([
      { message_id: '3EB0C27000000000000501', sender_id: ACCOUNT, reaction_count: 1 },
      { message_id: '3EB0C27000000000000502', sender_id: ACCOUNT, reaction_count: 0 },
      { message_id: '3EB0C27000000000000503', sender_id: '20000000000502@lid', reaction_count: 1 },
    ]);
    expect(
      await rows(
        lake,
        `SELECT participant_id, sum(messages)::int AS messages, sum(reactions_given)::int AS given,
                sum(reactions_received)::int AS received
           FROM engagement_member_daily GROUP BY 1 ORDER BY 1`
      )
    ).toEqual([
      { participant_id: '20000000000502@lid', messages: 1, given: 1, received: 1 },
      { participant_id: ACCOUNT, messages: 2, given: 1, received: 1 },
    ]);
    expect(await rows(lake, `SELECT sum(messages)::int AS messages FROM engagement_group_daily`)).toEqual([
      { messages: 3 },
    ]);
    expect(await rows(lake, `SELECT id FROM whatsapp_participants WHERE id LIKE '%:%'`)).toEqual([]);
  });

  it('keeps a cohort week with no active member as 0 %, a cohort nobody of which is active, and the CSV header (case 6)', async () => {
    const { lake } = lakes.at(5);
    await storeCase(lake, '06-quiet-cohorts');
    expect(
      await rows(
        lake,
        `SELECT to_char(cohort_week, 'YYYY-MM-DD') AS week, week_offset, cohort_size, active_members, retention::float8
           FROM engagement_cohort_retention ORDER BY 1, 2`
      )
    ).toEqual([
      { week: '2024-03-04', week_offset: 0, cohort_size: 1, active_members: 1, retention: 1 },
      { week: '2024-03-04', week_offset: 1, cohort_size: 1, active_members: 0, retention: 0 },
      { week: '2024-03-04', week_offset: 2, cohort_size: 1, active_members: 1, retention: 1 },
      { week: '2024-03-11', week_offset: 0, cohort_size: 1, active_members: 0, retention: 0 },
      { week: '2024-03-11', week_offset: 1, cohort_size: 1, active_members: 0, retention: 0 },
    ]);
    const report = await readEngagementReport(lake.pool, {
      groupJid: null,
      from: '2024-03-04',
      to: '2024-03-20',
      lurkerDays: 30,
      topMembers: 10,
    });
    expect(report.cohorts.map((c) => [c.cohortWeek, c.weekOffset, c.activeMembers])).toEqual([
      ['2024-03-04', 0, 1],
      ['2024-03-04', 1, 0],
      ['2024-03-04', 2, 1],
      ['2024-03-11', 0, 0],
      ['2024-03-11', 1, 0],
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-cohorts-'));
    try {
      await writeReportCsv({ ...report, cohorts: [], lurkers: [] }, dir);
      expect(readFileSync(join(dir, 'cohorts.csv'), 'utf8')).toBe(
        'cohortWeek,weekOffset,cohortSize,activeMembers,retention\r\n'
      );
      expect(readFileSync(join(dir, 'lurkers.csv'), 'utf8')).toBe('groupJid,members,lurkers\r\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts a view-once placeholder as a view-once message of its sender, which replies join (case 4)', async () => {
    const { lake } = lakes.at(3);
    await storeCase(lake, '04-view-once-placeholder');
    expect(
      await rows(lake, `SELECT message_id, sender_id, kind, reply_to_id FROM whatsapp_messages ORDER BY message_id`)
    ).toEqual([
      { message_id: '3EB0C27000000000000401', sender_id: '20000000000401@lid', kind: 'view_once', reply_to_id: null },
      {
        message_id: '3EB0C27000000000000402',
        sender_id: '20000000000402@lid',
        kind: 'text',
        reply_to_id: '3EB0C27000000000000401',
      },
    ]);
    expect(
      await rows(
        lake,
        `SELECT sum(messages)::int AS messages, max(active_members) AS active FROM engagement_group_daily`
      )
    ).toEqual([{ messages: 2, active: 2 }]);
  });

  it('reads a removal of the account named by its LID as time out of the group, not a leave and a join (case 7)', async () => {
    const { lake } = lakes.at(6);
    const check = async (): Promise<void> => {
      expect(await rows(lake, `SELECT group_jid, started_at, ended_at FROM whatsapp_group_unobserved_periods`)).toEqual(
        [
          {
            group_jid: '120363000000002707@g.us',
            started_at: new Date(1709564400_000),
            ended_at: new Date(1709737200_000),
          },
        ]
      );
      expect(await rows(lake, `SELECT participant_id, change FROM engagement_membership_changes`)).toEqual([]);
    };
    await storeCase(lake, '07-account-by-lid');
    await check();
    // The raw rows keep the LID: a rebuild tells the same.
    await rebuildProjections(lake.pool);
    await check();
  });

  it('writes the identities of a sender again after a forget under the running API (case 8)', async () => {
    const { lake } = lakes.at(7);
    const [first, second] = loadEngagementCase('08-forget-under-running-api').events;
    if (!first || !second) throw new Error('fixture has two events');
    const identities = async (): Promise<unknown[]> => [
      ...(await rows(lake, `SELECT id, phone_jid FROM whatsapp_participants WHERE id = '20000000000801@lid'`)),
      ...(await rows(lake, `SELECT lid, phone_jid FROM whatsapp_lid_aliases`)),
    ];
    const expected = [
      { id: '20000000000801@lid', phone_jid: '5500000000801@s.whatsapp.net' },
      { lid: '20000000000801@lid', phone_jid: '5500000000801@s.whatsapp.net' },
    ];
    // The same repository (and its identity cache) stores both, as one running API would.
    await lake.store(first.event_id, JSON.stringify(first.body));
    expect(await identities()).toEqual(expected);
    const client = await lake.pool.connect();
    try {
      await client.query('BEGIN');
      await forgetParticipantInLake(client, ['20000000000801@lid'], 'erased-case-8@erased');
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await identities()).toEqual([]);
    await lake.store(second.event_id, JSON.stringify(second.body));
    expect(await identities()).toEqual(expected);
  });

  it('writes the identities of a sender again after a rebuild of an emptied lake under the running API (case 8)', async () => {
    const { lake } = lakes.at(10);
    const [first, second] = loadEngagementCase('08-forget-under-running-api').events;
    if (!first || !second) throw new Error('fixture has two events');
    const identities = async (): Promise<unknown[]> => [
      ...(await rows(lake, `SELECT id, phone_jid FROM whatsapp_participants WHERE id = '20000000000801@lid'`)),
      ...(await rows(lake, `SELECT lid, phone_jid FROM whatsapp_lid_aliases`)),
    ];
    // The same repository (and its identity cache) stores both, as one running API would.
    await lake.store(first.event_id, JSON.stringify(first.body));
    // Between two scenarios the operator empties the lake and rebuilds its projections; the API keeps running.
    await lake.pool.query('TRUNCATE whatsapp_event_logs');
    await rebuildProjections(lake.pool);
    expect(await identities()).toEqual([]);
    await lake.store(second.event_id, JSON.stringify(second.body));
    expect(await identities()).toEqual([
      { id: '20000000000801@lid', phone_jid: '5500000000801@s.whatsapp.net' },
      { lid: '20000000000801@lid', phone_jid: '5500000000801@s.whatsapp.net' },
    ]);
  });

  it('counts a poll voter as active, not a lurker, and the account as a member who wrote (case 9)', async () => {
    const { lake } = lakes.at(8);
    await storeCase(lake, '09-poll-voters-and-account');
    expect(
      await rows(
        lake,
        `SELECT participant_id, to_char(day, 'YYYY-MM-DD') AS day, messages, poll_votes
           FROM engagement_member_activity_days ORDER BY 1`
      )
    ).toEqual([
      { participant_id: '20000000000901@lid', day: '2024-03-04', messages: 1, poll_votes: 0 },
      { participant_id: '20000000000902@lid', day: '2024-03-05', messages: 0, poll_votes: 1 },
      { participant_id: '5500000000900@s.whatsapp.net', day: '2024-03-04', messages: 1, poll_votes: 0 },
    ]);
    expect(
      await rows(lake, `SELECT participant_id, last_active_day IS NULL AS is_silent FROM engagement_lurkers ORDER BY 1`)
    ).toEqual([
      { participant_id: '20000000000901@lid', is_silent: false },
      { participant_id: '20000000000902@lid', is_silent: false },
      { participant_id: '20000000000903@lid', is_silent: true },
    ]);
    expect(
      await rows(
        lake,
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, messages, active_members FROM engagement_group_daily WHERE messages > 0 OR active_members > 0 ORDER BY 1`
      )
    ).toEqual([
      { day: '2024-03-04', messages: 2, active_members: 2 },
      { day: '2024-03-05', messages: 0, active_members: 1 },
    ]);
  });
});
