import { describe, expect, it } from 'vitest';
import { filterEvent } from '../../../collector/edge-filter.js';
import { DEFAULT_BODY_LIMITS, prepareItem } from '../../../collector/prepare-item.js';
import { readCoverageDays } from '../../../lake/index.js';
import { historyPush } from '../../fixtures/collector/history-push.js';
import { readProjections, useFreshLakes } from '../../helpers/lake-databases.js';

/** ADR 0016: history older than the group's first snapshot, and history of a group the account left. */

const SELF = '5500000000009:12@s.whatsapp.net';
const SELF_PN = '5500000000009@s.whatsapp.net';
const ALICE = { lid: '100000000000291@lid', pn: '5500000000291@s.whatsapp.net' };
const BOB = { lid: '100000000000292@lid', pn: '5500000000292@s.whatsapp.net' };
const T_SNAPSHOT = Date.parse('2026-02-10T12:00:00Z');
const seconds = (iso: string) => Date.parse(iso) / 1000;

function deliveries(name: string, data: unknown, capturedAt: Date): Array<{ eventId: string; body: string }> {
  return filterEvent(name, data).kept.map((kept) => {
    const prepared = prepareItem(kept, capturedAt.toISOString(), SELF, DEFAULT_BODY_LIMITS, {
      source: kept.source ?? 'live',
    });
    return { eventId: prepared.row.eventId, body: prepared.row.body };
  });
}

const text = (group: string, id: string, who: { lid: string }, iso: string) => ({
  key: { remoteJid: group, fromMe: false, id, participant: who.lid },
  messageTimestamp: seconds(iso),
  message: { conversation: 'from history' },
});

const fresh = useFreshLakes(2);

describe('history at the edges of what the lake observed (ADR 0016)', () => {
  it('keeps history older than the first snapshot in either order, as not observed days', async () => {
    const group = '120363000000029101@g.us';
    const snapshot = deliveries(
      'groups.metadata',
      {
        id: group,
        subject: 'Edge group',
        size: 2,
        participants: [
          { id: ALICE.lid, phoneNumber: ALICE.pn, admin: 'superadmin' },
          { id: SELF_PN, admin: null },
        ],
      },
      new Date(T_SNAPSHOT)
    );
    // Bob spoke and left before the link; Alice added him earlier still.
    const push = historyPush(
      [
        {
          id: group,
          messages: [
            {
              key: { remoteJid: group, fromMe: false, id: 'ADD-BOB', participant: ALICE.lid },
              messageTimestamp: seconds('2026-02-01T09:00:00Z'),
              messageStubType: 27,
              messageStubParameters: [JSON.stringify({ id: BOB.lid, phoneNumber: BOB.pn })],
            },
            text(group, 'OLD-BOB', BOB, '2026-02-02T09:00:00Z'),
            {
              key: { remoteJid: group, fromMe: false, id: 'LEAVE-BOB', participant: BOB.lid },
              messageTimestamp: seconds('2026-02-03T09:00:00Z'),
              messageStubType: 32,
              messageStubParameters: [JSON.stringify({ id: BOB.lid, phoneNumber: BOB.pn })],
            },
          ],
        },
      ],
      { mappings: [ALICE, BOB] }
    );
    const history = deliveries('messaging-history.set', push, new Date(T_SNAPSHOT + 60_000));
    for (const delivery of [...snapshot, ...history]) await fresh.at(0).lake.store(delivery.eventId, delivery.body);
    for (const delivery of [...history, ...snapshot]) await fresh.at(1).lake.store(delivery.eventId, delivery.body);

    const [first, second] = await Promise.all(fresh.lakes.map((lake) => readProjections(lake.pool, [group])));
    expect(second).toEqual(first);
    expect(first?.['memberships']).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ participant_id: BOB.lid, left_at: new Date('2026-02-03T09:00:00Z') }),
        expect.objectContaining({ participant_id: ALICE.lid, left_at: null }),
      ])
    );
    const messages = await fresh
      .at(0)
      .lake.pool.query(`SELECT message_id, sender_id FROM whatsapp_messages WHERE chat_jid = $1`, [group]);
    expect(messages.rows).toEqual([{ message_id: 'OLD-BOB', sender_id: BOB.lid }]);
    const [coverage] = await readCoverageDays(fresh.at(0).lake.pool, {
      groupJid: group,
      now: new Date('2026-02-10T18:00:00Z'),
    });
    expect(coverage?.days[0]).toEqual({ day: '2026-02-01', coverage: 'none' });
    expect(new Set(coverage?.days.map((d) => d.coverage))).toEqual(new Set(['none']));
  });

  it('keeps history of a group the account has since left, and marks it out from the leave on', async () => {
    const left = '120363000000029102@g.us';
    const push = historyPush([
      {
        id: left,
        messages: [
          text(left, 'BEFORE-LEAVE', ALICE, '2026-01-20T10:00:00Z'),
          {
            key: { remoteJid: left, fromMe: true, id: 'SELF-LEAVE' },
            messageTimestamp: seconds('2026-01-21T10:00:00Z'),
            messageStubType: 32,
            messageStubParameters: [SELF_PN],
          },
        ],
      },
    ]);
    const lake = fresh.at(0).lake;
    for (const delivery of deliveries('messaging-history.set', push, new Date(T_SNAPSHOT)))
      await lake.store(delivery.eventId, delivery.body);
    const stored = await lake.pool.query<{ type: string; source: string }>(
      `SELECT type, source FROM whatsapp_event_logs WHERE chat_jid = $1 ORDER BY occurred_at`,
      [left]
    );
    expect(stored.rows).toEqual([
      { type: 'messages.upsert', source: 'history' },
      { type: 'messages.upsert', source: 'history' },
    ]);
    const unobserved = await lake.pool.query(
      `SELECT started_at, ended_at FROM whatsapp_group_unobserved_periods WHERE group_jid = $1`,
      [left]
    );
    expect(unobserved.rows).toEqual([{ started_at: new Date('2026-01-21T10:00:00Z'), ended_at: null }]);
    const [coverage] = await readCoverageDays(lake.pool, { groupJid: left, now: new Date('2026-01-22T12:00:00Z') });
    expect(coverage?.days).toEqual([
      { day: '2026-01-20', coverage: 'none' },
      { day: '2026-01-21', coverage: 'none' },
      { day: '2026-01-22', coverage: 'none' },
    ]);
  });
});
