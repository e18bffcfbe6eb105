import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { catchUpEngagementRollup } from '../../../lake/engagement/rollup-catch-up.js';
import { rebuildMessageReadModel } from '../../../lake/events/rebuild-messages.js';
import { loadEngagementCase } from '../../fixtures/engagement-cases/load-engagement-case.js';
import {
  type Body,
  mergedRevoke,
  pollVote,
  reactionEvent,
  revokeMessage,
  textMessage,
} from '../../helpers/message-events.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

// The member-day rollup and hour counts as migration 1765750000001 counted them when read (captured rows, exports
// and all): the reference every read of the views must equal, whatever the tables and marks hold (ADR 0025).
const RECOUNT_MEMBER_DAYS = `
  SELECT a.group_jid, a.participant_key, a.day, sum(a.messages)::int AS messages, sum(a.replies)::int AS replies,
         sum(a.reactions_given)::int AS reactions_given, sum(a.poll_votes)::int AS poll_votes
    FROM (SELECT chat_jid AS group_jid, sender_id AS participant_key,
                 (sent_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date AS day, is_message::int AS messages,
                 (is_message AND reply_to_id IS NOT NULL)::int AS replies, 0 AS reactions_given,
                 (NOT is_message)::int AS poll_votes
            FROM whatsapp_message_records_attributed
           WHERE (is_message OR kind = 'poll_vote') AND sender_id IS NOT NULL
          UNION ALL
          SELECT chat_jid, reactor_id, (reacted_at AT TIME ZONE (SELECT wa_engagement_time_zone()))::date, 0, 0, 1, 0
            FROM whatsapp_message_reactions WHERE text <> ''
          UNION ALL
          SELECT m.group_jid, m.participant_key, m.day, 1, 0, 0, 0
            FROM whatsapp_export_messages m
            JOIN whatsapp_export_days d ON d.group_jid = m.group_jid AND d.day = m.day AND d.is_counted) a
   GROUP BY a.group_jid, a.participant_key, a.day`;
const RECOUNT_HOURS = `
  SELECT group_jid, local_at::date AS day, extract(hour FROM local_at)::int AS hour, count(*)::int AS messages
    FROM (SELECT r.chat_jid AS group_jid, r.sent_at AT TIME ZONE wa_engagement_time_zone() AS local_at
            FROM whatsapp_message_records_attributed r WHERE r.is_message AND r.sender_id IS NOT NULL) stamps
   GROUP BY 1, 2, 3`;

// Each sender's first message per group and day as the captured messages give it (migration 1765900000000).
const RECOUNT_FIRST_MESSAGES = `
  SELECT DISTINCT ON (chat_jid, sender_id, (sent_at AT TIME ZONE wa_engagement_time_zone())::date)
         chat_jid AS group_jid, sender_id AS participant_key, (sent_at AT TIME ZONE wa_engagement_time_zone())::date AS day,
         sent_at, message_id
    FROM whatsapp_message_records_attributed WHERE is_message AND sender_id IS NOT NULL
   ORDER BY chat_jid, sender_id, 3, sent_at, message_id`;

const GROUP_A = '120363000000000801@g.us';
const GROUP_B = '120363000000000802@g.us';
const ANA = '100000000000801@lid';
const BETO = '100000000000802@lid';
// 2026-05-04 12:00 UTC and the days around it.
const T0 = Date.UTC(2026, 4, 4, 12) / 1000;
const DAY_S = 86_400;

const fresh = useFreshLake();
const store = async (...bodies: Body[]): Promise<void> => {
  for (const body of bodies) await fresh.lake.store(randomUUID(), JSON.stringify(body));
};
const rows = async (sql: string): Promise<string[]> =>
  (await fresh.lake.pool.query<Record<string, unknown>>(sql)).rows.map((row) => JSON.stringify(row)).sort();

/** Every read of both views equals the recount, the whole lake and one group's day. */
async function expectExact(): Promise<void> {
  const columns =
    'group_jid, participant_key, to_char(day, $$YYYY-MM-DD$$) AS day, messages, replies, reactions_given, poll_votes';
  expect(await rows(`SELECT ${columns} FROM engagement_member_day_totals`)).toEqual(
    await rows(`SELECT ${columns} FROM (${RECOUNT_MEMBER_DAYS}) r`)
  );
  const hours = 'group_jid, to_char(day, $$YYYY-MM-DD$$) AS day, hour, messages';
  expect(await rows(`SELECT ${hours} FROM engagement_activity_hours`)).toEqual(
    await rows(`SELECT ${hours} FROM (${RECOUNT_HOURS}) r`)
  );
  const firsts = 'group_jid, participant_key, to_char(day, $$YYYY-MM-DD$$) AS day, sent_at, message_id';
  expect(await rows(`SELECT ${firsts} FROM engagement_first_message_days`)).toEqual(
    await rows(`SELECT ${firsts} FROM (${RECOUNT_FIRST_MESSAGES}) r`)
  );
  expect(
    await rows(`SELECT ${hours} FROM engagement_activity_hours WHERE group_jid = '${GROUP_A}' AND day = '2026-05-04'`)
  ).toEqual(
    await rows(`SELECT ${hours} FROM (${RECOUNT_HOURS}) r WHERE group_jid = '${GROUP_A}' AND day = '2026-05-04'`)
  );
}

const catchUp = (): Promise<number> => catchUpEngagementRollup(fresh.lake.pool);
const marks = async (): Promise<number> =>
  Number((await fresh.lake.pool.query<{ n: string }>('SELECT count(*) AS n FROM engagement_rollup_marks')).rows[0]?.n);
const tableRows = async (): Promise<number> =>
  Number(
    (await fresh.lake.pool.query<{ n: string }>('SELECT count(*) AS n FROM engagement_rollup_member_days')).rows[0]?.n
  );

describe('engagement rollup tables (ADR 0025, a year’s volume)', () => {
  it('reads as the recount at every step: before and after each catch-up, edits, deletes, a new zone, a rebuild', async () => {
    const a = (id: string, sender = ANA): { group: string; id: string; sender: string } => ({
      group: GROUP_A,
      id,
      sender,
    });
    await store(
      textMessage(a('3EB0RC0000000001'), T0),
      textMessage(a('3EB0RC0000000002', BETO), T0 + 60, { replyTo: '3EB0RC0000000001' }),
      textMessage({ group: GROUP_B, id: '3EB0RC0000000003', sender: BETO }, T0 - DAY_S),
      reactionEvent(a('3EB0RC0000000001'), BETO, '👍', (T0 + 120) * 1000),
      pollVote(a('3EB0RC0000000004', BETO), T0 + 180, '3EB0RC0000000001')
    );
    expect(await marks()).toBeGreaterThan(0);
    await expectExact();

    expect(await catchUp()).toBeGreaterThan(0);
    expect(await marks()).toBe(0);
    expect(await tableRows()).toBeGreaterThan(0);
    await expectExact();

    // A late history message on an older day, a removed reaction, a revoke and a merged revoke stub.
    await store(
      textMessage(a('3EB0RC0000000005'), T0 - 3 * DAY_S),
      reactionEvent(a('3EB0RC0000000001'), BETO, '', (T0 + 300) * 1000),
      revokeMessage(a('3EB0RC0000000006', BETO), T0 + 400, '3EB0RC0000000002'),
      mergedRevoke(a('3EB0RC0000000007', BETO), T0 + 500)
    );
    await expectExact();
    await catchUp();
    await expectExact();

    // What erasure and retention do: rows rewritten and deleted in place.
    await fresh.lake.pool.query(
      `UPDATE whatsapp_message_records SET sender_id = 'erased:1' WHERE message_id = '3EB0RC0000000005'`
    );
    await fresh.lake.pool.query(`DELETE FROM whatsapp_message_records WHERE message_id = '3EB0RC0000000003'`);
    await expectExact();
    await catchUp();
    await expectExact();
    expect(await marks()).toBe(0);

    // A new zone: the tables are not current until the next catch-up, and the views recount everything meanwhile.
    await fresh.lake.pool.query(`UPDATE engagement_settings SET time_zone = 'Asia/Tokyo'`);
    await expectExact();
    await catchUp();
    await expectExact();

    const client = await fresh.lake.pool.connect();
    try {
      await rebuildMessageReadModel(client, 'America/Sao_Paulo');
    } finally {
      client.release();
    }
    await expectExact();
    await catchUp();
    await expectExact();
    expect(await marks()).toBe(0);
  });

  it('marks the day a change names only indirectly: a reaction taken back later, a revoke that re-attributes', async () => {
    const a = (id: string): { group: string; id: string; sender: string } => ({ group: GROUP_A, id, sender: ANA });
    await store(textMessage(a('3EB0RC0000000010'), T0 + 10 * DAY_S));
    await store(reactionEvent(a('3EB0RC0000000010'), BETO, '🎉', (T0 + 11 * DAY_S) * 1000));
    await catchUp();
    // Only the reaction row changes: its old day loses the reaction, the new day gains nothing.
    await store(reactionEvent(a('3EB0RC0000000010'), BETO, '', (T0 + 13 * DAY_S) * 1000));
    await catchUp();
    await expectExact();

    // Engagement case 3 (a merged offline revoke) with the revoke protocol message two days after the merged item: storing it changes no
    // record of the merged item's day, only the revoke row that gives that record its author.
    const [merged, revoke] = loadEngagementCase('03-merged-offline-revoke').events;
    if (merged === undefined || revoke === undefined) throw new Error('case 3 has two events first');
    await store(merged.body);
    await catchUp();
    const payload = revoke.body['payload'] as Record<string, unknown>;
    await store({
      ...revoke.body,
      payload: { ...payload, messageTimestamp: Number(payload['messageTimestamp']) + 2 * DAY_S },
    });
    await catchUp();
    await expectExact();
  });

  it('keeps the mark of a message committed after a catch-up’s snapshot, so the next read still counts it', async () => {
    const catchUpClient = await fresh.lake.pool.connect();
    try {
      await catchUpClient.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await catchUpClient.query('SELECT 1'); // the snapshot
      await store(textMessage({ group: GROUP_B, id: '3EB0RC0000000008', sender: ANA }, T0 + DAY_S));
      await catchUpClient.query('SELECT engagement_rollup_catch_up()');
      await catchUpClient.query('COMMIT');
    } finally {
      catchUpClient.release();
    }
    expect(await marks()).toBeGreaterThan(0);
    await expectExact();
    await catchUp();
    expect(await marks()).toBe(0);
    await expectExact();
  });

  it('refuses a catch-up outside a repeatable-read transaction', async () => {
    await expect(fresh.lake.pool.query('SELECT engagement_rollup_catch_up()')).rejects.toThrow(/repeatable-read/);
  });
});
