import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { rebuildProjections } from '../../../lake/events/rebuild-projections.js';
import {
  editMessage,
  editUpdate,
  encryptedEdit,
  mergedRevoke,
  reactionEvent,
  reactionMessage,
  revokeMessage,
  textMessage,
  undecryptable,
  type Body,
} from '../../helpers/message-events.js';
import { useFreshLakes } from '../../helpers/lake-databases.js';

/** The JIDs of one run: fresh per run, the same in every order of one run. */
interface RunJids {
  group: (index: number) => string;
  lid: (index: number) => string;
  phone: (index: number) => string;
}
const runJids = (run: number): RunJids => {
  const stamp = `${String(run).padStart(4, '0')}${String(Date.now()).slice(-6)}`;
  return {
    group: (index) => `120363${stamp}${String(index).padStart(2, '0')}@g.us`,
    lid: (index) => `1${stamp}${String(index).padStart(3, '0')}@lid`,
    phone: (index) => `55${stamp}${String(index).padStart(3, '0')}@s.whatsapp.net`,
  };
};

// Few ids, people and times (around a local midnight in São Paulo) so that events collide on purpose.
const T0 = Date.parse('2024-03-10T02:59:58Z') / 1000;
const time = fc.integer({ min: T0, max: T0 + 4 });
const messageId = fc.constantFrom('M0', 'M1', 'M2', 'M3');
const people = fc.nat({ max: 3 });
const group = fc.nat({ max: 1 });
type EventFactory = (jids: RunJids) => Body;
/** Person p speaks under their LID, or (p ≥ 2) under their phone JID until an alias merges it. */
const sender = (jids: RunJids, p: number, asPhone: boolean): string => (asPhone ? jids.phone(p) : jids.lid(p));
const key = (jids: RunJids, g: number, id: string, p: number, asPhone: boolean) => ({
  group: jids.group(g),
  id,
  sender: sender(jids, p, asPhone),
});

const messageEvent = fc
  .record({ t: time, g: group, id: messageId, p: people, asPhone: fc.boolean(), reply: fc.option(messageId) })
  .map(
    ({ t, g, id, p, asPhone, reply }): EventFactory =>
      (jids) =>
        textMessage(key(jids, g, id, p, asPhone), t, reply ? { replyTo: reply } : {})
  );
const placeholderEvent = fc.record({ t: time, g: group, id: messageId, p: people }).map(
  ({ t, g, id, p }): EventFactory =>
    (jids) =>
      undecryptable(key(jids, g, id, p, false), t)
);
const editEvent = fc
  .record({ t: time, g: group, target: messageId, p: people, form: fc.constantFrom('upsert', 'update', 'encrypted') })
  .map(({ t, g, target, p, form }): EventFactory => (jids) => {
    const editKey = key(jids, g, `E${String(t)}${target}`, p, false);
    if (form === 'update') return editUpdate(editKey, t, target);
    return form === 'upsert' ? editMessage(editKey, t, target) : encryptedEdit(editKey, t, target);
  });
const revokeEvent = fc.record({ t: time, g: group, target: messageId, p: people, merged: fc.boolean() }).map(
  ({ t, g, target, p, merged }): EventFactory =>
    (jids) =>
      merged
        ? mergedRevoke(key(jids, g, target, p, false), t)
        : revokeMessage(key(jids, g, `D${target}`, p, false), t, target)
);
const reactionArbitrary = fc
  .record({
    t: time,
    g: group,
    target: messageId,
    p: people,
    asPhone: fc.boolean(),
    text: fc.constantFrom('👍', '🔥', ''),
    asMessage: fc.boolean(),
  })
  .map(({ t, g, target, p, asPhone, text, asMessage }): EventFactory => (jids) => {
    const targetKey = key(jids, g, target, 0, false);
    const reactor = sender(jids, p, asPhone);
    return asMessage
      ? reactionMessage(targetKey, reactor, text, t * 1000)
      : reactionEvent(targetKey, reactor, text, t * 1000);
  });
const aliasEvent = fc.record({ p: fc.constantFrom(2, 3) }).map(({ p }): EventFactory => (jids) => ({
  type: 'lid-mapping.update',
  chat_jid: null,
  payload: { lid: jids.lid(p), pn: jids.phone(p) },
}));
const eventArbitrary: fc.Arbitrary<EventFactory> = fc.oneof(
  { arbitrary: messageEvent, weight: 4 },
  { arbitrary: placeholderEvent, weight: 2 },
  { arbitrary: editEvent, weight: 2 },
  { arbitrary: revokeEvent, weight: 2 },
  { arbitrary: reactionArbitrary, weight: 4 },
  { arbitrary: aliasEvent, weight: 1 }
);

/** Every read-model table and engagement view of the run's groups, as plain sorted rows. */
async function readModel(pool: pg.Pool, groups: readonly string[]): Promise<Record<string, unknown[]>> {
  const queries: Record<string, string> = {
    messages: `SELECT * FROM whatsapp_messages WHERE chat_jid = ANY($1) ORDER BY chat_jid, message_id`,
    records: `SELECT chat_jid, message_id, kind, is_message, sender_id, sent_at, reply_to_id, record_rank, record_event_id
                FROM whatsapp_message_records WHERE chat_jid = ANY($1) ORDER BY 1, 2`,
    reactions: `SELECT chat_jid, target_id, reactor_id, text, reacted_at, event_id FROM whatsapp_message_reactions
                 WHERE chat_jid = ANY($1) ORDER BY 1, 2, 3`,
    // The rollup, counted from the read model when read (ADR 0013).
    memberDays: `SELECT * FROM engagement_member_day_totals WHERE group_jid = ANY($1) ORDER BY 1, 2, 3`,
    memberDaily: `SELECT * FROM engagement_member_daily WHERE group_jid = ANY($1) ORDER BY group_jid, participant_id, day`,
    groupDaily: `SELECT * FROM engagement_group_daily WHERE group_jid = ANY($1) ORDER BY group_jid, day`,
  };
  const result: Record<string, unknown[]> = {};
  for (const [name, sql] of Object.entries(queries)) result[name] = (await pool.query(sql, [groups])).rows;
  return result;
}

const fresh = useFreshLakes(4);

describe('the message read model and its rollups are order-independent', () => {
  it('gives identical rows for 40 message events in any order, concurrently and replayed twice; the rollup counts every message once and equals a rebuild', async () => {
    const groups: string[] = [];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(eventArbitrary, fc.nat()), { minLength: 40, maxLength: 40 }),
        async (events) => {
          run += 1;
          const jids = runJids(run);
          const runGroups = [jids.group(0), jids.group(1)];
          groups.push(...runGroups);
          const deliveries = events.map(([factory, order]) => ({
            eventId: randomUUID(),
            order,
            body: JSON.stringify(factory(jids)),
          }));
          const orders = [deliveries, [...deliveries].reverse(), [...deliveries].sort((a, b) => a.order - b.order)];
          for (const [index, order] of orders.entries()) {
            const lake = fresh.lakes[index];
            if (!lake) throw new Error('missing lake');
            for (const delivery of order) await lake.store(delivery.eventId, delivery.body);
          }
          // Every delivery at once, twice: group commit batches them, and the replay must change nothing.
          const concurrent = fresh.lakes[orders.length];
          if (!concurrent) throw new Error('missing lake');
          for (let pass = 0; pass < 2; pass += 1)
            await Promise.all(deliveries.map((delivery) => concurrent.store(delivery.eventId, delivery.body)));
          const [first, ...others] = await Promise.all(fresh.lakes.map((lake) => readModel(lake.pool, runGroups)));
          for (const other of others) expect(other).toEqual(first);
        }
      ),
      { numRuns: 8, endOnFailure: true }
    );
    const lake = fresh.lakes[0];
    if (!lake) throw new Error('missing lake');
    const incremental = await readModel(lake.pool, groups);
    expect(incremental['messages']?.length).toBeGreaterThan(0);
    expect(incremental['memberDays']?.length).toBeGreaterThan(0);
    // The rollup and the message view count the same messages, per group.
    const counted = await lake.pool.query<{ group_jid: string; rollup: number; messages: number }>(
      `SELECT g.group_jid,
              (SELECT COALESCE(sum(messages), 0)::int FROM engagement_member_day_totals t WHERE t.group_jid = g.group_jid) AS rollup,
              (SELECT count(*)::int FROM whatsapp_messages m WHERE m.chat_jid = g.group_jid AND m.sender_id IS NOT NULL) AS messages
         FROM unnest($1::text[]) AS g(group_jid)`,
      [groups]
    );
    for (const row of counted.rows) expect(row.rollup).toBe(row.messages);
    expect(counted.rows.some((row) => row.messages > 0)).toBe(true);
    // `wa-lake rebuild` replays the raw table into the same rows.
    const rebuilt = await rebuildProjections(lake.pool);
    expect(rebuilt.messageEvents).toBeGreaterThan(0);
    expect(await readModel(lake.pool, groups)).toEqual(incremental);
  });
});
