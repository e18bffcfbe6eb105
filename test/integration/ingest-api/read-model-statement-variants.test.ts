import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeEventLogRow, insertEventLogRecords } from '../../../lake/events/event-log-rows.js';
import { emptyEncodedFacts, encodeMessageFacts } from '../../../lake/events/messages-repository.js';
import { useFreshLake } from '../../helpers/lake-databases.js';

// ADR 0012 and 0013: the raw-row INSERT carries one CTE per kind of read-model fact present, so each of the 15
// combinations (with and without lone LIDs) is a statement text of its own. Each must be accepted by
// PostgreSQL and write exactly its rows.
const GROUP = '120363000000000141@g.us';
const KINDS = ['m', 'e', 'v', 'x'] as const;
const AT = new Date('2026-06-01T12:00:00Z');

const fresh = useFreshLake();

const counts = async (): Promise<Record<string, number>> =>
  (
    await fresh.lake.pool.query<Record<string, number>>(
      `SELECT (SELECT count(*)::int FROM whatsapp_message_records WHERE chat_jid = $1) AS m,
              (SELECT count(*)::int FROM whatsapp_message_edits WHERE chat_jid = $1) AS e,
              (SELECT count(*)::int FROM whatsapp_message_revokes WHERE chat_jid = $1) AS v,
              (SELECT count(*)::int FROM whatsapp_message_reactions WHERE chat_jid = $1) AS x,
              (SELECT COALESCE(sum(messages + reactions_given), 0)::int FROM engagement_member_day_totals
                WHERE group_jid = $1) AS activity,
              (SELECT count(*)::int FROM whatsapp_participants WHERE id LIKE '1000000009%') AS participants`,
      [GROUP]
    )
  ).rows[0] ?? {};

describe('read-model statement variants (ADR 0012, ADR 0013)', () => {
  it('writes exactly the facts of every combination of kinds, with and without lone LIDs', async () => {
    let combination = 0;
    for (let mask = 1; mask < 16; mask += 1) {
      for (const hasLoneLids of [false, true]) {
        combination += 1;
        const present = KINDS.filter((_, bit) => (mask & (1 << bit)) !== 0);
        const eventId = randomUUID();
        const id = `3EB0V${String(combination).padStart(11, '0')}`;
        const sender = `1000000009${String(combination).padStart(5, '0')}@lid`;
        const facts = emptyEncodedFacts();
        encodeMessageFacts(facts, eventId, {
          records: present.includes('m')
            ? [
                {
                  chatJid: GROUP,
                  messageId: id,
                  senderId: sender,
                  sentAt: AT,
                  kind: 'text',
                  rank: 2,
                  replyToId: null,
                  mentionCount: 0,
                },
              ]
            : [],
          edits: present.includes('e') ? [{ chatJid: GROUP, targetId: `${id}E`, editedAtMs: AT.getTime() }] : [],
          revokes: present.includes('v') ? [{ chatJid: GROUP, targetId: `${id}V`, deletedAt: AT }] : [],
          reactions: present.includes('x')
            ? [{ chatJid: GROUP, targetId: `${id}X`, reactorId: sender, text: '👍', reactedAt: AT }]
            : [],
        });
        const row = encodeEventLogRow({
          id: randomUUID(),
          eventId,
          type: 'messages.upsert',
          chatJid: GROUP,
          bodyText: '{"payload":{}}',
          receivedAt: AT,
          capturedAt: null,
          upsertType: 'notify',
          occurredAt: AT,
          isSanitized: false,
        });
        const before = await counts();
        const inserted = await insertEventLogRecords(
          fresh.lake.pool,
          [row],
          facts,
          hasLoneLids ? [{ ev: eventId, id: sender }] : []
        );
        expect(inserted).toEqual(new Set([eventId]));
        const after = await counts();
        const grew = (name: string): number => (after[name] ?? 0) - (before[name] ?? 0);
        for (const kind of KINDS)
          expect({ mask, kind, grew: grew(kind) }).toEqual({ mask, kind, grew: present.includes(kind) ? 1 : 0 });
        // A message and a reaction each count once in the rollup (ADR 0013); edits and revokes not at all.
        expect({ mask, activity: grew('activity') }).toEqual({
          mask,
          activity: +present.includes('m') + +present.includes('x'),
        });
        expect({ mask, hasLoneLids, participants: grew('participants') }).toEqual({
          mask,
          hasLoneLids,
          participants: hasLoneLids ? 1 : 0,
        });
        // A redelivery of the same row writes nothing, whatever the kinds.
        expect(await insertEventLogRecords(fresh.lake.pool, [row], facts, [])).toEqual(new Set());
        expect(await counts()).toEqual(after);
      }
    }
  });
});
