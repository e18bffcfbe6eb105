import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useFreshLakes, type TestLake } from '../../helpers/lake-databases.js';

/**
 * ADR 0019: joins and leaves (`engagement_membership_changes`) and the account's unobserved periods are a
 * function of the set of stored events, whatever the delivery order, duplicates and the number of collectors
 * delivering them, in the manner of `projections-order.test.ts`. Members change by stubs (timed) and by
 * `group-participants.update` hints captured after them (an offline flush); the account is named by its LID or
 * its phone JID; two collectors of the account deliver their own copies (the stubs with their own capture
 * times), some twice.
 */
const MEMBERS = 3;
const ACCOUNT = MEMBERS;
const seconds = fc.integer({ min: 1_700_000_000, max: 1_700_000_020 });
const iso = (s: number): string => new Date(s * 1000).toISOString();

interface RunJids {
  group: string;
  lid: (index: number) => string;
  phone: (index: number) => string;
}
const runJids = (run: number): RunJids => {
  const stamp = `${String(run).padStart(4, '0')}${String(Date.now()).slice(-6)}`;
  return {
    group: `120363${stamp}27@g.us`,
    lid: (index) => `2${stamp}${String(index).padStart(3, '0')}@lid`,
    phone: (index) => `55${stamp}${String(index).padStart(3, '0')}@s.whatsapp.net`,
  };
};

/** One delivery body of a collector: `copy` 0 or 1 (which collector), as a function of the run's JIDs. */
type EventFactory = (jids: RunJids, copy: number) => Record<string, unknown>;
const accountFields = (jids: RunJids): Record<string, string> => ({
  account_jid: jids.phone(ACCOUNT),
  account_lid: jids.lid(ACCOUNT),
});
const stubEvent = fc
  .record({
    t: seconds,
    who: fc.nat({ max: MEMBERS }),
    stubType: fc.constantFrom(27, 28, 32),
    byPhone: fc.boolean(),
    id: fc.uuid(),
  })
  .map(({ t, who, stubType, byPhone, id }): EventFactory => (jids, copy) => ({
    type: 'messages.upsert',
    chat_jid: jids.group,
    captured_at: iso(t + 30 + copy * 7),
    upsert_type: 'append',
    ...accountFields(jids),
    payload: {
      key: { remoteJid: jids.group, id, fromMe: false, participant: jids.lid(9) },
      messageTimestamp: t,
      messageStubType: stubType,
      messageStubParameters: [JSON.stringify(byPhone ? { id: jids.phone(who) } : { id: jids.lid(who) })],
    },
  }));
// The hint of a stub, emitted by the flush after every stub: the same bytes from both collectors (one event_id).
const hintEvent = fc
  .record({ who: fc.nat({ max: MEMBERS }), action: fc.constantFrom('add', 'remove') })
  .map(({ who, action }): EventFactory => (jids) => ({
    type: 'group-participants.update',
    chat_jid: jids.group,
    captured_at: iso(1_700_000_100),
    ...accountFields(jids),
    payload: {
      id: jids.group,
      action,
      participants: [{ id: jids.lid(who), phoneNumber: jids.phone(who), admin: null }],
    },
  }));
const eventArbitrary: fc.Arbitrary<EventFactory> = fc.oneof(
  { arbitrary: stubEvent, weight: 3 },
  { arbitrary: hintEvent, weight: 2 }
);

const fresh = useFreshLakes(4);

async function readFigures(lake: TestLake, group: string): Promise<Record<string, unknown[]>> {
  const q = async (sql: string): Promise<unknown[]> =>
    (await lake.pool.query<Record<string, unknown>>(sql, [group])).rows;
  return {
    changes: await q(
      `SELECT participant_id, at, change FROM engagement_membership_changes WHERE group_jid = $1 ORDER BY 1, 2, 3`
    ),
    unobserved: await q(
      `SELECT started_at, ended_at FROM whatsapp_group_unobserved_periods WHERE group_jid = $1 ORDER BY 1, 2`
    ),
    memberships: await q(
      `SELECT participant_id, joined_at, left_at FROM whatsapp_group_memberships WHERE group_jid = $1 ORDER BY 1`
    ),
  };
}

describe('joins, leaves and unobserved periods are order-independent (ADR 0019)', () => {
  it('gives the same figures for 24 events in any order, twice, from two collectors, or all at once', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(eventArbitrary, fc.nat(), fc.subarray([0, 1], { minLength: 1 }), fc.boolean()), {
          minLength: 24,
          maxLength: 24,
        }),
        async (events) => {
          run += 1;
          const jids = runJids(run);
          // Each event's copies (one per collector that saw it), each maybe twice; one event_id per event.
          const deliveries = events.flatMap(([factory, key, copies, isRepeated]) => {
            const eventId = randomUUID();
            return copies.flatMap((copy) => {
              const delivery = { eventId, key: key + copy, body: JSON.stringify(factory(jids, copy)) };
              return isRepeated ? [delivery, delivery] : [delivery];
            });
          });
          const orders = [deliveries, [...deliveries].reverse(), [...deliveries].sort((a, b) => a.key - b.key)];
          for (const [index, order] of orders.entries())
            for (const delivery of order) await fresh.at(index).lake.store(delivery.eventId, delivery.body);
          await Promise.all(deliveries.map((delivery) => fresh.at(3).lake.store(delivery.eventId, delivery.body)));
          const [first, ...others] = await Promise.all(fresh.lakes.map((lake) => readFigures(lake, jids.group)));
          for (const other of others) expect(other).toEqual(first);
          // A member's changes alternate (ties in time aside): joins and leaves differ by at most one, so a late
          // hint never adds a second join or leave.
          const changes = (first?.['changes'] ?? []) as Array<{ participant_id: string; change: string }>;
          const balance = new Map<string, number>();
          for (const { participant_id: id, change } of changes)
            balance.set(id, (balance.get(id) ?? 0) + (change === 'join' ? 1 : -1));
          for (const value of balance.values()) expect(Math.abs(value)).toBeLessThanOrEqual(1);
          // Stubs tell the changes of a member they name: none happens at the hints' capture time.
          const late = await fresh.at(0).lake.pool.query(
            `SELECT c.participant_id FROM engagement_membership_changes c
              WHERE c.group_jid = $1 AND c.at = $2
                AND EXISTS (SELECT 1 FROM whatsapp_membership_facts f LEFT JOIN whatsapp_phone_owners o ON o.phone_jid = f.participant_id
                             WHERE f.group_jid = c.group_jid AND f.is_timed AND COALESCE(o.lid, f.participant_id) = c.participant_id)`,
            [jids.group, new Date(1_700_000_100_000)]
          );
          expect(late.rows).toEqual([]);
          // The account's own facts are its coverage, never a member's join or leave.
          expect(changes.filter((change) => change.participant_id === jids.lid(ACCOUNT))).toEqual([]);
        }
      ),
      { numRuns: 6, endOnFailure: true }
    );
  }, 300_000);
});
