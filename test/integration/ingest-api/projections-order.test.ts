import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { rebuildProjections } from '../../../ingest-api/projections/rebuild.js';
import { createMigratedDatabase, dropDatabase, openLake, readProjections, type TestLake } from './lake-databases.js';

const PARTICIPANTS = ['100000000000011@lid', '100000000000012@lid', '100000000000013@lid', '100000000000014@lid'];
const PHONES = ['5500000000011@s.whatsapp.net', '5500000000012@s.whatsapp.net'];
const ROLES = [null, 'admin', 'superadmin'] as const;

// Small time range (seconds) on purpose: many events share a time, so ties by event_id are exercised.
const seconds = fc.integer({ min: 1_700_000_000, max: 1_700_000_008 });
const iso = (s: number): string => new Date(s * 1000).toISOString();
const someParticipants = fc.subarray(PARTICIPANTS, { minLength: 0 });
const person = (id: string, admin: (typeof ROLES)[number] = null): Record<string, unknown> => ({
  id,
  phoneNumber: PHONES[Number(id.at(-1)) % 2],
  admin,
});

/** One delivery body for group `group`, as a function so each run can use its own group JID. */
type EventFactory = (group: string) => Record<string, unknown>;
const eventArbitrary: fc.Arbitrary<EventFactory> = fc.oneof(
  fc
    .record({
      t: seconds,
      members: someParticipants,
      roles: fc.array(fc.constantFrom(...ROLES), { minLength: 4, maxLength: 4 }),
      subject: fc.constantFrom('A', 'B'),
    })
    .map(({ t, members, roles, subject }) => (group: string) => ({
      type: 'groups.metadata',
      chat_jid: group,
      captured_at: iso(t),
      payload: { id: group, subject, participants: members.map((id, i) => person(id, roles[i] ?? null)) },
    })),
  fc
    .record({
      t: seconds,
      stubType: fc.constantFrom(27, 28, 29, 30, 32),
      who: fc.subarray(PARTICIPANTS, { minLength: 1, maxLength: 2 }),
      id: fc.uuid(),
    })
    .map(({ t, stubType, who, id }) => (group: string) => ({
      type: 'messages.upsert',
      chat_jid: group,
      captured_at: iso(t + 5),
      payload: {
        key: { remoteJid: group, id, fromMe: false },
        messageTimestamp: t,
        messageStubType: stubType,
        messageStubParameters: who.map((w) => JSON.stringify(person(w))),
      },
    })),
  fc
    .record({
      t: seconds,
      action: fc.constantFrom('add', 'remove', 'promote', 'demote'),
      who: fc.subarray(PARTICIPANTS, { minLength: 1, maxLength: 2 }),
    })
    .map(({ t, action, who }) => (group: string) => ({
      type: 'group-participants.update',
      chat_jid: group,
      captured_at: iso(t),
      payload: { id: group, action, participants: who.map((w) => person(w)) },
    })),
  fc.record({ t: seconds, subject: fc.constantFrom('X', 'Y', 'Z') }).map(({ t, subject }) => (group: string) => ({
    type: 'groups.update',
    chat_jid: group,
    captured_at: iso(t),
    payload: { id: group, subject, announce: t % 2 === 0 },
  })),
  fc
    .record({ t: seconds, lid: fc.constantFrom(...PARTICIPANTS), pn: fc.constantFrom(...PHONES) })
    .map(({ t, lid, pn }) => () => ({
      type: 'lid-mapping.update',
      chat_jid: null,
      captured_at: iso(t),
      payload: { lid, pn },
    }))
);

let urls: string[] = [];
let lakes: TestLake[] = [];
beforeAll(async () => {
  urls = await Promise.all([1, 2, 3].map(() => createMigratedDatabase(inject('databaseUrl'))));
  lakes = urls.map(openLake);
});
afterAll(async () => {
  await Promise.all(lakes.map((lake) => lake.pool.end()));
  await Promise.all(urls.map(dropDatabase));
});

describe('projections are order-independent (DESIGN §9)', () => {
  it('gives identical projection tables for 50 membership events in any order, and rebuild equals incremental', async () => {
    const groups: string[] = [];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(eventArbitrary, fc.nat()), { minLength: 50, maxLength: 50 }),
        async (events) => {
          run += 1;
          const group = `120363${String(run).padStart(12, '0')}${String(Date.now()).slice(-6)}@g.us`;
          groups.push(group);
          // Fresh ids per run (shrinking replays runs); the same ids in every order of one run.
          const deliveries = events.map(([factory, key]) => ({
            eventId: randomUUID(),
            key,
            body: JSON.stringify(factory(group)),
          }));
          const orders = [deliveries, [...deliveries].reverse(), [...deliveries].sort((a, b) => a.key - b.key)];
          for (const [index, order] of orders.entries()) {
            const lake = lakes[index];
            if (!lake) throw new Error('missing lake');
            for (const delivery of order) await lake.store(delivery.eventId, delivery.body);
          }
          const [first, ...others] = await Promise.all(lakes.map((lake) => readProjections(lake.pool, [group])));
          for (const other of others) expect(other).toEqual(first);
        }
      ),
      { numRuns: 8, endOnFailure: true }
    );
    const lake = lakes[0];
    if (!lake) throw new Error('missing lake');
    const incremental = await readProjections(lake.pool, groups);
    expect(incremental['memberships']?.length).toBeGreaterThan(0);
    const result = await rebuildProjections(lake.pool);
    expect(result.events).toBeGreaterThan(0);
    expect(await readProjections(lake.pool, groups)).toEqual(incremental);
  });
});
