import { describe, expect, it } from 'vitest';
import { linkMembers } from '../../../lake/index.js';
import { textMessage, withPushName } from '../../helpers/message-events.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

const G1 = '120363000000000961@g.us';
const ANA = '100000000000961@lid';
const BEA = '100000000000962@lid';
const T = Date.parse('2024-03-04T15:00:00Z') / 1000;

const fresh = useFreshLake();

describe('display_name in every engagement view (ADR 0020, ADR 0025)', () => {
  it('names the participant or person of each row, and costs nothing to a query that does not read it', async () => {
    const bodies = [
      withPushName('Ana', textMessage({ group: G1, id: 'A1', sender: ANA }, T)),
      withPushName('Bea', textMessage({ group: G1, id: 'B1', sender: BEA }, T + 60, { replyTo: 'A1' })),
    ];
    for (const [index, body] of bodies.entries())
      await fresh.lake.store(`00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, JSON.stringify(body));
    await linkMembers(fresh.lake.pool, [{ participantId: BEA, memberId: 'discord:bea' }], 'cli');
    const q = async (sql: string): Promise<unknown[]> =>
      (await fresh.lake.pool.query<Record<string, unknown>>(sql)).rows;
    expect(await q(`SELECT message_id, display_name FROM whatsapp_messages ORDER BY 1`)).toEqual([
      { message_id: 'A1', display_name: 'Ana' },
      { message_id: 'B1', display_name: 'Bea' },
    ]);
    expect(
      await q(`SELECT from_display_name, to_display_name, replies FROM engagement_reply_graph ORDER BY 1`)
    ).toEqual([{ from_display_name: 'Bea', to_display_name: 'Ana', replies: 1 }]);
    expect(await q(`SELECT display_name, target_display_name FROM engagement_reply_edges`)).toEqual([
      { display_name: 'Bea', target_display_name: 'Ana' },
    ]);
    // A linked person is named by their participants' names, under the member id they count as.
    expect(
      await q(`SELECT person_key, display_name FROM engagement_member_levels WHERE group_jid IS NULL ORDER BY 1`)
    ).toEqual([
      { person_key: ANA, display_name: 'Ana' },
      { person_key: 'discord:bea', display_name: 'Bea' },
    ]);
    const columns = await q(
      `SELECT table_name FROM information_schema.columns
        WHERE column_name LIKE '%display_name' AND table_name LIKE ANY (ARRAY['engagement%', 'whatsapp_messages', 'whatsapp_reactions'])
        GROUP BY 1 ORDER BY 1`
    );
    expect(columns.map((row) => (row as { table_name: string }).table_name)).toEqual([
      'engagement_first_responses',
      'engagement_level_transitions',
      'engagement_lurkers',
      'engagement_member_activity_days',
      'engagement_member_daily',
      'engagement_member_levels',
      'engagement_member_received_days',
      'engagement_membership_changes',
      'engagement_reply_edges',
      'engagement_reply_graph',
      'engagement_unanswered',
      'engagement_unanswered_candidates',
      'whatsapp_messages',
      'whatsapp_reactions',
    ]);
    // The names come from raw rows (the costliest view): a count must not read them, a name must.
    const plan = async (sql: string): Promise<string> =>
      (await fresh.lake.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`)).rows
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    expect(await plan('SELECT count(*) FROM whatsapp_messages')).not.toContain('whatsapp_member_links');
    expect(await plan('SELECT display_name FROM whatsapp_messages')).toContain('whatsapp_member_links');
  });
});
