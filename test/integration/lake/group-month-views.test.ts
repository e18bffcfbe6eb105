import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { catchUpEngagementRollup } from '../../../lake/engagement/rollup-catch-up.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import { messageBody, metadataBody, newGroupJid, newMember, type Member } from '../../helpers/lake-privacy-fixtures.js';
import { type Body, editMessage, reactionEvent, revokeMessage, textMessage } from '../../helpers/message-events.js';

// The views ADR 0033 reads per group and month, each with the filter the benchmark gives them (bench/engagement-year-
// volume.ts): read with the filter, they return exactly the rows of the whole view that the filter keeps (the whole
// view read first: `OFFSET 0` keeps the filter out of it).
const VIEWS: readonly [view: string, filter: string][] = [
  ['engagement_unanswered_candidates', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_unanswered', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_newcomer_funnel', 'group_jid = $1 AND cohort_week BETWEEN $2 AND $3'],
  ['engagement_cohort_retention', 'group_jid = $1 AND cohort_week BETWEEN $2 AND $3'],
  ['engagement_member_received_days', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_member_daily', 'group_jid = $1 AND day BETWEEN $2 AND $3'],
  ['engagement_reply_graph', 'group_jid = $1 AND last_at >= $2::date AND first_at < $3::date + 1'],
];

const DAY_S = 86_400;
// Noon UTC of a day 120 days ago: the scenario spans three months up to a few days ago.
const T0 = Math.floor(Date.now() / 1000 / DAY_S) * DAY_S - 120 * DAY_S + 12 * 3600;

const fresh = useFreshLake();

const store = async (...bodies: (Body | string)[]): Promise<void> => {
  for (const body of bodies)
    await fresh.lake.store(randomUUID(), typeof body === 'string' ? body : JSON.stringify(body));
};
const rows = async (sql: string, values: unknown[]): Promise<string[]> =>
  (await fresh.lake.pool.query<Record<string, unknown>>(sql, values)).rows.map((row) => JSON.stringify(row)).sort();

const joined = (group: string, who: Member, t: number): Body => ({
  type: 'group-participants.update',
  chat_jid: group,
  captured_at: new Date(t * 1000).toISOString(),
  payload: { id: group, action: 'add', participants: [{ id: who.lid, admin: null }] },
});
const question = (group: string, id: string, author: Member, t: number): string =>
  messageBody(group, author, 'anyone there?', new Date(t * 1000), { id });

/** For every group and every month the lake holds, each view filtered equals the whole view, then filtered. */
async function expectFilteredAsWhole(step: string, groups: string[]): Promise<void> {
  const months = await fresh.lake.pool.query<{ from: string; to: string }>(
    `SELECT to_char(m, 'YYYY-MM-DD') AS from, to_char(m + interval '1 month' - interval '1 day', 'YYYY-MM-DD') AS to
       FROM generate_series(date_trunc('month', to_timestamp($1)), date_trunc('month', to_timestamp($1 + 90 * 86400)),
                            interval '1 month') AS m`,
    [T0]
  );
  const seen = new Set<string>();
  for (const group of groups)
    for (const month of months.rows)
      for (const [view, filter] of VIEWS) {
        const values = [group, month.from, month.to];
        const filtered = await rows(`SELECT * FROM ${view} WHERE ${filter}`, values);
        const whole = await rows(`SELECT * FROM (SELECT * FROM ${view} OFFSET 0) v WHERE ${filter}`, values);
        expect(filtered, `${view}, ${group}, ${month.from}, ${step}`).toEqual(whole);
        if (filtered.length > 0) seen.add(view);
      }
  expect([...seen].sort(), step).toEqual(VIEWS.map(([view]) => view).sort());
}

describe('views of one group and one month (ADR 0033)', () => {
  it('return the rows of the whole view for that group and month, before and after a catch-up', async () => {
    const [g1, g2] = [newGroupJid(), newGroupJid()];
    const [ana, bia, caio, dani, eva] = [newMember(), newMember(), newMember(), newMember(), newMember()] as [
      Member,
      Member,
      Member,
      Member,
      Member,
    ];
    await store(
      metadataBody(g1, [ana, bia, caio], new Date((T0 - DAY_S) * 1000).toISOString()),
      metadataBody(g2, [ana, bia], new Date((T0 - DAY_S) * 1000).toISOString())
    );
    await catchUpEngagementRollup(fresh.lake.pool);
    const key = (group: string, id: string, sender: string): { group: string; id: string; sender: string } => ({
      group,
      id,
      sender,
    });

    // Newcomers who join and write (answered by a reply, by a mention by phone JID, not at all), questions answered
    // in their conversation or never, messages near midnight, senders named by phone JID, reactions (one taken
    // back, one given again under the phone JID), an edit and a revoke, over three months in two groups.
    await store(
      joined(g1, dani, T0 + 2 * DAY_S),
      joined(g1, eva, T0 + 3 * DAY_S),
      joined(g2, dani, T0 + 40 * DAY_S),
      messageBody(g1, ana, 'welcome', new Date(T0 * 1000), { id: 'GM0000000001' }),
      question(g1, 'GM0000000002', bia, T0 + 2 * 3600),
      messageBody(g1, caio, 'yes', new Date((T0 + 2 * 3600 + 300) * 1000), { id: 'GM0000000003' }),
      messageBody(g1, dani, 'hello all', new Date((T0 + 3 * DAY_S) * 1000), { id: 'GM0000000004' }),
      messageBody(g1, ana, 'hi Dani', new Date((T0 + 3 * DAY_S + 600) * 1000), {
        id: 'GM0000000005',
        replyTo: { id: 'GM0000000004', author: dani },
      }),
      messageBody(g1, eva, 'hello', new Date((T0 + 4 * DAY_S + 11 * 3600 + 59 * 60) * 1000), { id: 'GM0000000006' }),
      textMessage(key(g1, 'GM0000000007', bia.phoneJid), T0 + 4 * DAY_S + 13 * 3600, { mentions: [eva.phoneJid] }),
      question(g1, 'GM0000000008', caio, T0 + 35 * DAY_S + 11 * 3600 + 58 * 60),
      textMessage(key(g1, 'GM0000000009', caio.phoneJid), T0 + 36 * DAY_S),
      question(g2, 'GM0000000010', ana, T0 + 40 * DAY_S + 3600),
      messageBody(g2, dani, 'hi G2', new Date((T0 + 41 * DAY_S) * 1000), { id: 'GM0000000011' }),
      textMessage(key(g2, 'GM0000000012', bia.lid), T0 + 41 * DAY_S + 60, {
        replyTo: 'GM0000000010',
        mentions: [dani.lid],
      }),
      messageBody(g1, dani, 'back', new Date((T0 + 30 * DAY_S) * 1000), { id: 'GM0000000013' }),
      messageBody(g1, eva, 'week 12', new Date((T0 + 86 * DAY_S) * 1000), { id: 'GM0000000014' }),
      reactionEvent(key(g1, 'GM0000000004', dani.lid), ana.lid, '👍', (T0 + 3 * DAY_S + 700) * 1000),
      reactionEvent(key(g1, 'GM0000000004', dani.lid), bia.lid, '❤️', (T0 + 33 * DAY_S) * 1000),
      reactionEvent(key(g1, 'GM0000000004', dani.lid), bia.lid, '', (T0 + 34 * DAY_S) * 1000),
      reactionEvent(key(g1, 'GM0000000008', caio.lid), ana.phoneJid, '🙏', (T0 + 36 * DAY_S) * 1000),
      reactionEvent(key(g1, 'GM0000000008', caio.lid), ana.lid, '👀', (T0 + 37 * DAY_S) * 1000),
      editMessage(key(g1, 'GM0000000015', bia.lid), T0 + 5 * DAY_S, 'GM0000000002'),
      revokeMessage(key(g1, 'GM0000000016', caio.lid), T0 + 64 * DAY_S, 'GM0000000003')
    );
    await expectFilteredAsWhole('before the catch-up', [g1, g2]);
    await catchUpEngagementRollup(fresh.lake.pool);
    await expectFilteredAsWhole('after it', [g1, g2]);
    await fresh.lake.pool.query(`UPDATE engagement_settings SET time_zone = 'Asia/Tokyo'`);
    await expectFilteredAsWhole('after a change of zone', [g1, g2]);
  });
});
