import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runErasure } from '../../../cli/privacy/run-erasure.js';
import { catchUpEngagementRollup } from '../../../lake/engagement/rollup-catch-up.js';
import { rebuildProjections } from '../../../lake/events/rebuild-projections.js';
import { redactOldMessageBodies } from '../../../lake/privacy/redact-old-message-bodies.js';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import { messageBody, metadataBody, newGroupJid, newMember, type Member } from '../../helpers/lake-privacy-fixtures.js';
import {
  type Body,
  editMessage,
  mergedRevoke,
  pollVote,
  reactionEvent,
  revokeMessage,
  textMessage,
} from '../../helpers/message-events.js';

// The kept tables of ADR 0031 against a recount from the read model that reads none of them: the member months,
// group days and hour months (the captured member-days and hours as migration 1765750000001 counted them, chat
// exports included, summed), the conversation starts (the rule of migration 1765750000000), and the reply and
// mention edges as migration 1765650000000 defined them.
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
const RECOUNT_MEMBER_MONTHS = `
  SELECT group_jid, participant_key, to_char(date_trunc('month', day), 'YYYY-MM-DD') AS month,
         bit_or(1 << (extract(day FROM day)::int - 1))::int AS days, sum(messages)::int AS messages,
         sum(replies)::int AS replies, sum(reactions_given)::int AS reactions_given, sum(poll_votes)::int AS poll_votes
    FROM (${RECOUNT_MEMBER_DAYS}) d GROUP BY 1, 2, 3`;
const RECOUNT_GROUP_DAYS = `
  SELECT group_jid, to_char(day, 'YYYY-MM-DD') AS day, sum(messages)::int AS messages, sum(replies)::int AS replies,
         sum(reactions_given)::int AS reactions_given, sum(poll_votes)::int AS poll_votes
    FROM (${RECOUNT_MEMBER_DAYS}) d GROUP BY 1, 2`;
const RECOUNT_HOUR_MONTHS = `
  SELECT group_jid, to_char(date_trunc('month', local_at::date), 'YYYY-MM-DD') AS month,
         extract(isodow FROM local_at::date)::int AS weekday, extract(hour FROM local_at)::int AS hour,
         bit_or(1 << (extract(day FROM local_at)::int - 1))::int AS days, count(*)::int AS messages
    FROM (SELECT r.chat_jid AS group_jid, r.sent_at AT TIME ZONE wa_engagement_time_zone() AS local_at
            FROM whatsapp_message_records_attributed r WHERE r.is_message AND r.sender_id IS NOT NULL) stamps
   GROUP BY 1, 2, 3, 4`;
// The hour months across groups of ADR 0032: the recount above summed per month, weekday and hour, masks OR-ed.
const RECOUNT_ALL_HOUR_MONTHS = `
  SELECT month, weekday, hour, bit_or(days)::int AS days, sum(messages)::int AS messages
    FROM (${RECOUNT_HOUR_MONTHS}) h GROUP BY 1, 2, 3`;
const RECOUNT_REPLY_EDGES = `
  SELECT w.chat_jid AS group_jid, w.message_id, w.sender_id, w.sent_at, 'reply'::text AS kind,
         w.reply_to_id::varchar AS target_message_id,
         COALESCE(t.sender_id, o.lid, x.quoted_participant)::varchar AS target_participant_id
    FROM whatsapp_messages w
    LEFT JOIN whatsapp_messages t ON t.chat_jid = w.chat_jid AND t.message_id = w.reply_to_id
    LEFT JOIN whatsapp_message_contexts x ON x.chat_jid = w.chat_jid AND x.message_id = w.message_id
    LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = x.quoted_participant
   WHERE w.reply_to_id IS NOT NULL AND w.sender_id IS NOT NULL
  UNION ALL
  SELECT DISTINCT w.chat_jid, w.message_id, w.sender_id, w.sent_at, 'mention', NULL::varchar, COALESCE(o.lid, j.jid)
    FROM whatsapp_messages w
    JOIN whatsapp_message_contexts x ON x.chat_jid = w.chat_jid AND x.message_id = w.message_id
   CROSS JOIN LATERAL unnest(x.mentioned_jids) AS j(jid)
    LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = j.jid
   WHERE w.sender_id IS NOT NULL AND j.jid <> w.chat_jid`;

const RECOUNT_CONVERSATION_STARTS = `
  SELECT group_jid, to_char((sent_at AT TIME ZONE wa_engagement_time_zone())::date, 'YYYY-MM-DD') AS day, message_id,
         sent_at
    FROM (SELECT w.chat_jid AS group_jid, w.message_id, w.sent_at, w.reply_to_id,
                 lag(w.sent_at) OVER (PARTITION BY w.chat_jid ORDER BY w.sent_at, w.message_id) AS previous_at
            FROM whatsapp_messages w WHERE w.sender_id IS NOT NULL) m
   WHERE reply_to_id IS NULL AND (previous_at IS NULL OR sent_at - previous_at >= interval '60 minutes')`;

const KEPT = [
  [
    'member months',
    `SELECT group_jid, participant_key, to_char(month, 'YYYY-MM-DD') AS month, days, messages, replies, reactions_given,
            poll_votes FROM engagement_member_months`,
    RECOUNT_MEMBER_MONTHS,
  ],
  [
    'group days',
    `SELECT group_jid, to_char(day, 'YYYY-MM-DD') AS day, messages, replies, reactions_given, poll_votes
       FROM engagement_group_day_totals`,
    RECOUNT_GROUP_DAYS,
  ],
  [
    'hour months',
    `SELECT group_jid, to_char(month, 'YYYY-MM-DD') AS month, weekday, hour, days, messages FROM engagement_hour_months`,
    RECOUNT_HOUR_MONTHS,
  ],
  [
    'hour months across groups',
    `SELECT to_char(month, 'YYYY-MM-DD') AS month, weekday, hour, bit_or(days)::int AS days,
            sum(messages)::int AS messages
       FROM engagement_all_hour_month_parts GROUP BY 1, 2, 3`,
    RECOUNT_ALL_HOUR_MONTHS,
  ],
  [
    'conversation starts',
    `SELECT group_jid, to_char(day, 'YYYY-MM-DD') AS day, message_id, sent_at FROM engagement_conversation_starts`,
    RECOUNT_CONVERSATION_STARTS,
  ],
  [
    'reply edges',
    `SELECT group_jid, message_id, sender_id, sent_at, kind, target_message_id, target_participant_id
       FROM engagement_reply_edges`,
    RECOUNT_REPLY_EDGES,
  ],
] as const;

const DAY_S = 86_400;
// Days in the past, so the retention run of the test reaches the oldest of them.
const T0 = Math.floor(Date.now() / 1000 / DAY_S) * DAY_S - 200 * DAY_S + 12 * 3600;

const fresh = useFreshLake();
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-kept-tables-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const store = async (...bodies: (Body | string)[]): Promise<void> => {
  for (const body of bodies)
    await fresh.lake.store(randomUUID(), typeof body === 'string' ? body : JSON.stringify(body));
};
const rows = async (sql: string): Promise<string[]> =>
  (await fresh.lake.pool.query<Record<string, unknown>>(sql)).rows.map((row) => JSON.stringify(row)).sort();
const catchUp = (): Promise<number> => catchUpEngagementRollup(fresh.lake.pool);

/** Every kept table reads as its recount, before and after a catch-up folds what changed. */
async function expectExact(step: string): Promise<void> {
  for (const round of ['before the catch-up', 'after it']) {
    for (const [name, kept, recount] of KEPT)
      expect(await rows(kept), `${name}, ${step}, ${round}`).toEqual(await rows(recount));
    if (round === 'before the catch-up') expect(await catchUp()).toBeGreaterThanOrEqual(0);
  }
}

describe('kept engagement tables (ADR 0031, ADR 0032)', () => {
  it('read as a recount from the read model after inserts, edits, revokes, retention, erasure and a rebuild', async () => {
    const group = newGroupJid();
    const [ana, bia, caio] = [newMember(), newMember(), newMember()] as [Member, Member, Member];
    const key = (id: string, member: Member): { group: string; id: string; sender: string } => ({
      group,
      id,
      sender: member.lid,
    });
    await store(metadataBody(group, [ana, bia, caio], new Date(T0 * 1000).toISOString()));
    // A second group, so the hour months across groups OR two groups' days and add their sums.
    const other = newGroupJid();
    await store(metadataBody(other, [ana, caio], new Date(T0 * 1000).toISOString()));
    await catchUp();

    // Messages over two months, replies (one quoting a message the lake lacks), mentions by LID and by phone JID,
    // reactions and a poll vote.
    await store(
      messageBody(group, ana, 'first', new Date(T0 * 1000), { id: 'KT0000000001' }),
      messageBody(group, bia, 'answer', new Date((T0 + 60) * 1000), {
        id: 'KT0000000002',
        replyTo: { id: 'KT0000000001', author: ana },
      }),
      messageBody(group, caio, 'late answer', new Date((T0 + 40 * DAY_S) * 1000), {
        id: 'KT0000000003',
        replyTo: { id: 'KT-NOT-IN-LAKE', author: ana },
      }),
      textMessage(key('KT0000000004', bia), T0 + 2 * DAY_S, { mentions: [caio.lid, ana.phoneJid, group] }),
      textMessage(key('KT0000000005', caio), T0 + 35 * DAY_S + 3600, {
        replyTo: 'KT0000000004',
        mentions: [bia.lid, bia.lid],
      }),
      reactionEvent(key('KT0000000001', ana), bia.lid, '👍', (T0 + 120) * 1000),
      pollVote(key('KT0000000006', caio), T0 + 3 * DAY_S, 'KT0000000001'),
      messageBody(other, ana, 'elsewhere, same day', new Date((T0 + 30) * 1000), { id: 'KT0000000011' }),
      messageBody(other, caio, 'elsewhere, next day', new Date((T0 + DAY_S) * 1000), { id: 'KT0000000012' })
    );
    await expectExact('after inserts');
    expect(await rows(`SELECT kind, count(*) FROM engagement_rollup_message_links GROUP BY 1`)).toEqual([
      '{"kind":"mention","count":"3"}',
      '{"kind":"reply","count":"3"}',
    ]);

    // A late history message on an earlier day, an edit, a reaction taken back, a revoke and a merged revoke stub.
    await store(
      messageBody(group, caio, 'history', new Date((T0 - 5 * DAY_S) * 1000), { id: 'KT0000000007' }),
      editMessage(key('KT0000000008', bia), T0 + 4 * DAY_S, 'KT0000000002'),
      reactionEvent(key('KT0000000001', ana), bia.lid, '', (T0 + 200) * 1000),
      revokeMessage(key('KT0000000009', ana), T0 + 41 * DAY_S, 'KT0000000003'),
      mergedRevoke(key('KT0000000010', bia), T0 + 42 * DAY_S)
    );
    await expectExact('after edits and revokes');

    // Retention rewrites the oldest payloads in place.
    await redactOldMessageBodies(fresh.lake.pool, new Date((T0 + 30 * DAY_S) * 1000), { requestedBy: 'test' });
    await expectExact('after retention');

    // Erasure rewrites the member's records, reactions and the payloads that mention or quote them; no kept table
    // holds their JIDs afterwards.
    await runErasure({
      erasureKey: TEST_ERASURE_KEY,
      pool: fresh.lake.pool,
      outboxPath: join(dir, `outbox-${randomUUID()}.sqlite`),
      temporalClient: null,
      participant: caio.lid,
      requestedBy: 'dpo@example.org',
    });
    const kept = await rows(`SELECT t::text FROM engagement_rollup_member_months t
                             UNION ALL SELECT t::text FROM engagement_rollup_message_links t
                             UNION ALL SELECT t::text FROM engagement_rollup_member_days t`);
    for (const value of [caio.lid, caio.phoneJid]) expect(kept.join('\n')).not.toContain(value.split('@')[0]);
    await expectExact('after erasure');

    await rebuildProjections(fresh.lake.pool);
    await expectExact('after a rebuild');
    await fresh.lake.pool.query(`UPDATE engagement_settings SET time_zone = 'Asia/Tokyo'`);
    await expectExact('after a change of zone');
  });
});
