import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rebuildProjections } from '../../../lake/events/rebuild-projections.js';
import { readProjections, useFreshLakes, type TestLake } from '../../helpers/lake-databases.js';

// Two fresh lakes: each test applies the same deliveries in one order to the first and in another order
// to the second, then compares every projection table (architecture.md §9 order independence).
const fresh = useFreshLakes(2);
const lakes = (): [TestLake, TestLake] => [fresh.at(0).lake, fresh.at(1).lake];

const randomDigits = (): string => String(Math.floor(Math.random() * 1e12)).padStart(12, '0');
const newGroup = (): string => `120363${randomDigits()}@g.us`;
const newLid = (): string => `1${randomDigits()}@lid`;
const newPhone = (): string => `55${randomDigits()}@s.whatsapp.net`;
interface Delivery {
  eventId: string;
  body: string;
}
const delivery = (type: string, payload: unknown, capturedAt: string, chatJid: string | null = null): Delivery => ({
  eventId: randomUUID(),
  body: JSON.stringify({ type, chat_jid: chatJid, payload, captured_at: capturedAt }),
});
const mapping = (lid: string, pn: string, capturedAt: string): Delivery =>
  delivery('lid-mapping.update', { lid, pn }, capturedAt);
/** A Baileys 6 style participant stub: the parameter is a bare phone-number JID. */
const addStub = (group: string, phone: string, seconds: number): Delivery =>
  delivery(
    'messages.upsert',
    {
      key: { remoteJid: group, id: randomUUID(), fromMe: false },
      messageTimestamp: seconds,
      messageStubType: 27,
      messageStubParameters: [phone],
    },
    new Date(seconds * 1000).toISOString(),
    group
  );
const snapshot = (group: string, participants: unknown[], capturedAt: string): Delivery =>
  delivery('groups.metadata', { id: group, subject: 'Group', participants }, capturedAt, group);

/** Stores `first` into lake 0 and `second` (the same deliveries in another order) into lake 1. */
async function storeBoth(first: readonly Delivery[], second: readonly Delivery[]): Promise<void> {
  for (const [index, order] of [first, second].entries()) {
    for (const item of order) expect(await lakes()[index]?.store(item.eventId, item.body)).toBe('stored');
  }
}

async function participantRows(lake: TestLake, ids: readonly string[]): Promise<unknown[]> {
  const { rows } = await lake.pool.query<Record<string, unknown>>(
    'SELECT id, lid, phone_jid FROM whatsapp_participants WHERE id = ANY($1) ORDER BY id',
    [ids]
  );
  return rows;
}

async function membershipRows(lake: TestLake, group: string): Promise<unknown[]> {
  const { rows } = await lake.pool.query<Record<string, unknown>>(
    'SELECT participant_id, role, joined_at, left_at FROM whatsapp_group_memberships WHERE group_jid = $1 ORDER BY participant_id',
    [group]
  );
  return rows;
}

describe('identity merge: a phone-number participant joins its LID once an alias is known (architecture.md §9, ADR 0004)', () => {
  it('merges a phone-first membership into the LID row when the mapping arrives later; mapping-first gives the same tables', async () => {
    const [group, lid, phone] = [newGroup(), newLid(), newPhone()];
    const join = addStub(group, phone, 1_700_000_000);
    const link = mapping(lid, phone, '2024-01-01T00:00:00Z');
    await storeBoth([join, link], [link, join]);
    for (const lake of lakes()) {
      expect(await participantRows(lake, [lid, phone])).toEqual([{ id: lid, lid, phone_jid: phone }]);
      expect(await membershipRows(lake, group)).toEqual([
        { participant_id: lid, role: 'member', joined_at: new Date(1_700_000_000_000), left_at: null },
      ]);
    }
    expect(await readProjections(lakes()[1].pool, [group])).toEqual(await readProjections(lakes()[0].pool, [group]));
  });

  it('resolves snapshot members stored under a phone JID through an alias learnt from another snapshot', async () => {
    const [group, otherGroup, lid, phone] = [newGroup(), newGroup(), newLid(), newPhone()];
    const oldStyle = snapshot(group, [{ id: phone, admin: null }], '2024-01-01T00:00:00Z');
    const withBoth = snapshot(otherGroup, [{ id: lid, phoneNumber: phone, admin: 'admin' }], '2024-01-02T00:00:00Z');
    const lidOnly = snapshot(group, [{ id: lid, admin: null }], '2024-01-03T00:00:00Z');
    await storeBoth([oldStyle, withBoth, lidOnly], [lidOnly, withBoth, oldStyle]);
    for (const lake of lakes()) {
      expect(await participantRows(lake, [lid, phone])).toEqual([{ id: lid, lid, phone_jid: phone }]);
      // Both snapshots of `group` name the same person, so the later one is no departure.
      expect(await membershipRows(lake, group)).toEqual([
        { participant_id: lid, role: 'member', joined_at: new Date('2024-01-01T00:00:00Z'), left_at: null },
      ]);
    }
    expect(await readProjections(lakes()[1].pool, [group, otherGroup])).toEqual(
      await readProjections(lakes()[0].pool, [group, otherGroup])
    );
  });

  it('gives a phone aliased to two LIDs to the latest alias (by last_seen_at, ties by the greater LID)', async () => {
    const [group, phone] = [newGroup(), newPhone()];
    const [earlier, later] = [newLid(), newLid()];
    const join = addStub(group, phone, 1_700_000_000);
    const first = mapping(earlier, phone, '2024-01-01T00:00:00Z');
    const second = mapping(later, phone, '2024-02-01T00:00:00Z');
    await storeBoth([join, first, second], [second, first, join]);
    for (const lake of lakes()) {
      expect(await participantRows(lake, [earlier, later, phone])).toEqual(
        [
          { id: earlier, lid: earlier, phone_jid: null },
          { id: later, lid: later, phone_jid: phone },
        ].sort((a, b) => (a.id < b.id ? -1 : 1))
      );
      expect(await membershipRows(lake, group)).toEqual([expect.objectContaining({ participant_id: later })]);
    }
    const [low, high] = [newLid(), newLid()].sort();
    if (!low || !high) throw new Error('missing lid');
    const tiedPhone = newPhone();
    const ties = [mapping(high, tiedPhone, '2024-03-01T00:00:00Z'), mapping(low, tiedPhone, '2024-03-01T00:00:00Z')];
    await storeBoth(ties, [...ties].reverse());
    for (const lake of lakes()) {
      expect(await participantRows(lake, [low, high])).toEqual([
        { id: low, lid: low, phone_jid: null },
        { id: high, lid: high, phone_jid: tiedPhone },
      ]);
    }
    expect(await readProjections(lakes()[1].pool, [group])).toEqual(await readProjections(lakes()[0].pool, [group]));
  });

  it('merges the rows of one event that names a person both by phone and by LID', async () => {
    const [group, lid, phone] = [newGroup(), newLid(), newPhone()];
    const both = snapshot(
      group,
      [
        { id: phone, admin: 'admin' },
        { id: lid, phoneNumber: phone, admin: null },
      ],
      '2024-01-01T00:00:00Z'
    );
    await storeBoth([both], [both]);
    for (const lake of lakes()) {
      expect(await participantRows(lake, [lid, phone])).toEqual([{ id: lid, lid, phone_jid: phone }]);
      // The entry stated under the LID itself wins over the one stated under its phone number.
      expect(await membershipRows(lake, group)).toEqual([
        { participant_id: lid, role: 'member', joined_at: new Date('2024-01-01T00:00:00Z'), left_at: null },
      ]);
    }
  });

  it('rebuild gives the same merged tables as the incremental build', async () => {
    const [group, lid, phone] = [newGroup(), newLid(), newPhone()];
    const lake = lakes()[0];
    for (const item of [
      addStub(group, phone, 1_700_000_000),
      snapshot(group, [{ id: phone, admin: 'admin' }], '2024-01-01T00:00:00Z'),
      mapping(lid, phone, '2024-01-02T00:00:00Z'),
    ])
      await lake.store(item.eventId, item.body);
    const incremental = await readProjections(lake.pool, [group]);
    expect(incremental['memberships']).toEqual([expect.objectContaining({ participant_id: lid, role: 'admin' })]);
    await rebuildProjections(lake.pool);
    expect(await readProjections(lake.pool, [group])).toEqual(incremental);
  });
});
