import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rebuildProjections } from '../../../lake/events/rebuild-projections.js';
import { readProjections, useFreshLakes } from '../../helpers/lake-databases.js';

/**
 * People of one run, by index. LIDs 0–3 are named by LID (with their own phone, 0 or 1, as
 * `phoneNumber`); phones 2–4 are named by phone number only (old-style groups, bare stub parameters)
 * until an alias maps them to a LID (ADR 0004); LIDs 4–5 appear only in aliases. Every run gets
 * fresh JIDs, so each starts with no alias and the merges happen inside the run.
 */
type Someone = { lid: number } | { phone: number };
const NAMED: Someone[] = [{ lid: 0 }, { lid: 1 }, { lid: 2 }, { lid: 3 }, { phone: 2 }, { phone: 3 }, { phone: 4 }];
const ALIAS_LIDS = [0, 1, 2, 3, 4, 5];
const ALIAS_PHONES = [0, 1, 2, 3, 4];
const GROUPS_PER_RUN = 3;
const ROLES = [null, 'admin', 'superadmin'] as const;

/** The JIDs of one run. */
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

// Small time range (seconds) on purpose: many events share a time, so ties by event_id and by LID are exercised.
const seconds = fc.integer({ min: 1_700_000_000, max: 1_700_000_008 });
const iso = (s: number): string => new Date(s * 1000).toISOString();
const groupIndex = fc.nat({ max: GROUPS_PER_RUN - 1 });
const person = (jids: RunJids, who: Someone, admin: (typeof ROLES)[number] = null): Record<string, unknown> =>
  'lid' in who
    ? { id: jids.lid(who.lid), phoneNumber: jids.phone(who.lid % 2), admin }
    : { id: jids.phone(who.phone), admin };
/** Stub parameters: Baileys 7 writes JSON objects, older captures bare JIDs (phone-only people get both). */
const stubParameter = (jids: RunJids, who: Someone, isBare: boolean): string =>
  isBare && 'phone' in who ? jids.phone(who.phone) : JSON.stringify(person(jids, who));

/** One delivery body, as a function of the run's JIDs. */
type EventFactory = (jids: RunJids) => Record<string, unknown>;
const snapshotEvent = fc
  .record({
    t: seconds,
    g: groupIndex,
    members: fc.subarray(NAMED),
    roles: fc.array(fc.constantFrom(...ROLES), { minLength: NAMED.length, maxLength: NAMED.length }),
    subject: fc.constantFrom('A', 'B'),
  })
  .map(({ t, g, members, roles, subject }): EventFactory => (jids) => ({
    type: 'groups.metadata',
    chat_jid: jids.group(g),
    captured_at: iso(t),
    payload: {
      id: jids.group(g),
      subject,
      participants: members.map((who, i) => person(jids, who, roles[i] ?? null)),
    },
  }));
const stubEvent = fc
  .record({
    t: seconds,
    g: groupIndex,
    stubType: fc.constantFrom(27, 28, 29, 30, 32),
    who: fc.subarray(NAMED, { minLength: 1, maxLength: 2 }),
    id: fc.uuid(),
    isBare: fc.boolean(),
  })
  .map(({ t, g, stubType, who, id, isBare }): EventFactory => (jids) => ({
    type: 'messages.upsert',
    chat_jid: jids.group(g),
    captured_at: iso(t + 5),
    payload: {
      key: { remoteJid: jids.group(g), id, fromMe: false },
      messageTimestamp: t,
      messageStubType: stubType,
      messageStubParameters: who.map((w) => stubParameter(jids, w, isBare)),
    },
  }));
const participantsUpdateEvent = fc
  .record({
    t: seconds,
    g: groupIndex,
    action: fc.constantFrom('add', 'remove', 'promote', 'demote'),
    who: fc.subarray(NAMED, { minLength: 1, maxLength: 2 }),
  })
  .map(({ t, g, action, who }): EventFactory => (jids) => ({
    type: 'group-participants.update',
    chat_jid: jids.group(g),
    captured_at: iso(t),
    payload: { id: jids.group(g), action, participants: who.map((w) => person(jids, w)) },
  }));
const groupUpdateEvent = fc
  .record({ t: seconds, g: groupIndex, subject: fc.constantFrom('X', 'Y', 'Z') })
  .map(({ t, g, subject }): EventFactory => (jids) => ({
    type: 'groups.update',
    chat_jid: jids.group(g),
    captured_at: iso(t),
    payload: { id: jids.group(g), subject, announce: t % 2 === 0 },
  }));
// Aliases, conflicting ones included (one phone, two LIDs), that merge phone-only participants.
const mappingEvent = fc
  .record({ t: seconds, lid: fc.constantFrom(...ALIAS_LIDS), pn: fc.constantFrom(...ALIAS_PHONES) })
  .map(({ t, lid, pn }): EventFactory => (jids) => ({
    type: 'lid-mapping.update',
    chat_jid: null,
    captured_at: iso(t),
    payload: { lid: jids.lid(lid), pn: jids.phone(pn) },
  }));
// The same kind of alias, learnt from a participant object that carries both ids.
const aliasingAddEvent = fc
  .record({ t: seconds, g: groupIndex, lid: fc.constantFrom(...ALIAS_LIDS), pn: fc.constantFrom(...ALIAS_PHONES) })
  .map(({ t, g, lid, pn }): EventFactory => (jids) => ({
    type: 'group-participants.update',
    chat_jid: jids.group(g),
    captured_at: iso(t),
    payload: {
      id: jids.group(g),
      action: 'add',
      participants: [{ id: jids.lid(lid), phoneNumber: jids.phone(pn), admin: null }],
    },
  }));
// Timed settings stubs racing untimed hints (ADR 0007), protocol messages, partial snapshots,
// aliases learnt from plain messages on the batch path, and the account's own removal and re-add.
const settingsStubEvent = fc
  .record({
    t: seconds,
    g: groupIndex,
    stub: fc.constantFrom<[number, string]>([21, 'X'], [21, 'Y'], [26, 'on'], [26, 'off'], [72, '86400'], [72, '0']),
    id: fc.uuid(),
  })
  .map(({ t, g, stub: [stubType, parameter], id }): EventFactory => (jids) => ({
    type: 'messages.upsert',
    chat_jid: jids.group(g),
    captured_at: iso(t + 5),
    payload: {
      key: { remoteJid: jids.group(g), id, fromMe: false },
      messageTimestamp: t,
      messageStubType: stubType,
      messageStubParameters: [parameter],
    },
  }));
const protocolEvent = fc
  .record({ t: seconds, g: groupIndex, expiration: fc.constantFrom(0, 604800), id: fc.uuid() })
  .map(({ t, g, expiration, id }): EventFactory => (jids) => ({
    type: 'messages.upsert',
    chat_jid: jids.group(g),
    captured_at: iso(t + 5),
    upsert_type: 'append',
    payload: {
      key: { remoteJid: jids.group(g), id, fromMe: false },
      messageTimestamp: t,
      message: { protocolMessage: { type: 3, ephemeralExpiration: expiration } },
    },
  }));
const partialSnapshotEvent = fc
  .record({ t: seconds, g: groupIndex, members: fc.subarray(NAMED, { minLength: 1, maxLength: 2 }) })
  .map(({ t, g, members }): EventFactory => (jids) => ({
    type: 'groups.metadata',
    chat_jid: jids.group(g),
    captured_at: iso(t),
    payload: {
      id: jids.group(g),
      subject: 'P',
      size: NAMED.length + 1,
      participants: members.map((who) => person(jids, who)),
    },
  }));
const pairingMessageEvent = fc
  .record({
    t: seconds,
    g: groupIndex,
    lid: fc.constantFrom(...ALIAS_LIDS),
    pn: fc.constantFrom(...ALIAS_PHONES),
    id: fc.uuid(),
  })
  .map(({ t, g, lid, pn, id }): EventFactory => (jids) => ({
    type: 'messages.upsert',
    chat_jid: jids.group(g),
    captured_at: iso(t + 5),
    upsert_type: 'notify',
    payload: {
      key: { remoteJid: jids.group(g), id, fromMe: false, participant: jids.lid(lid), participantAlt: jids.phone(pn) },
      messageTimestamp: t,
      message: { conversation: 'hi' },
    },
  }));
const accountEvent = fc
  .record({ t: seconds, g: groupIndex, stubType: fc.constantFrom(27, 28, 32), id: fc.uuid() })
  .map(({ t, g, stubType, id }): EventFactory => (jids) => ({
    type: 'messages.upsert',
    chat_jid: jids.group(g),
    captured_at: iso(t + 5),
    account_jid: jids.phone(9),
    payload: {
      key: { remoteJid: jids.group(g), id, fromMe: false },
      messageTimestamp: t,
      messageStubType: stubType,
      messageStubParameters: [JSON.stringify({ id: jids.lid(9), phoneNumber: jids.phone(9), admin: null })],
    },
  }));
// Few snapshots: each one recomputes its whole group, which would hide a merge that skipped a group.
const eventArbitrary: fc.Arbitrary<EventFactory> = fc.oneof(
  { arbitrary: snapshotEvent, weight: 1 },
  { arbitrary: stubEvent, weight: 3 },
  { arbitrary: participantsUpdateEvent, weight: 3 },
  { arbitrary: groupUpdateEvent, weight: 1 },
  { arbitrary: mappingEvent, weight: 3 },
  { arbitrary: aliasingAddEvent, weight: 1 },
  { arbitrary: settingsStubEvent, weight: 2 },
  { arbitrary: protocolEvent, weight: 1 },
  { arbitrary: partialSnapshotEvent, weight: 1 },
  { arbitrary: pairingMessageEvent, weight: 2 },
  { arbitrary: accountEvent, weight: 1 }
);

const fresh = useFreshLakes(4);

describe('projections are order-independent (architecture.md §9, ADR 0004)', () => {
  it('gives identical tables for 50 membership and alias events in any order or concurrently, and rebuild equals incremental', async () => {
    const groups: string[] = [];
    const phoneOnly: string[] = [];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(eventArbitrary, fc.nat()), { minLength: 50, maxLength: 50 }),
        async (events) => {
          run += 1;
          const jids = runJids(run);
          const runGroups = Array.from({ length: GROUPS_PER_RUN }, (_, index) => jids.group(index));
          groups.push(...runGroups);
          phoneOnly.push(...NAMED.flatMap((who) => ('phone' in who ? [jids.phone(who.phone)] : [])));
          // Fresh ids per run; the same ids in every order of one run.
          const deliveries = events.map(([factory, key]) => ({
            eventId: randomUUID(),
            key,
            body: JSON.stringify(factory(jids)),
          }));
          const orders = [deliveries, [...deliveries].reverse(), [...deliveries].sort((a, b) => a.key - b.key)];
          for (const [index, order] of orders.entries()) {
            const lake = fresh.lakes[index];
            if (!lake) throw new Error('missing lake');
            for (const delivery of order) await lake.store(delivery.eventId, delivery.body);
          }
          // The last lake takes every delivery at once (4 pooled connections): locks taken in an
          // inconsistent order would deadlock, and a deadlock is a recorded projection error.
          const concurrent = fresh.lakes[orders.length];
          if (!concurrent) throw new Error('missing lake');
          await Promise.all(deliveries.map((delivery) => concurrent.store(delivery.eventId, delivery.body)));
          const [first, ...others] = await Promise.all(
            fresh.lakes.map((lake) => readProjections(lake.pool, runGroups))
          );
          for (const other of others) expect(other).toEqual(first);
        }
      ),
      { numRuns: 8, endOnFailure: true }
    );
    const lake = fresh.lakes[0];
    if (!lake) throw new Error('missing lake');
    const incremental = await readProjections(lake.pool, groups);
    expect(incremental['memberships']?.length).toBeGreaterThan(0);
    expect(incremental['errors']).toEqual([]);
    // The runs did exercise the merge: phone-only people were aliased, and no aliased phone kept a row.
    const aliased = new Set((incremental['aliases'] as Array<{ phone_jid: string }>).map((row) => row.phone_jid));
    const merged = phoneOnly.filter((phone) => aliased.has(phone));
    expect(merged.length).toBeGreaterThan(0);
    const rowIds = [
      ...(incremental['participants'] as Array<{ id: string }>).map((row) => row.id),
      ...(incremental['memberships'] as Array<{ participant_id: string }>).map((row) => row.participant_id),
    ];
    expect(rowIds.filter((id) => merged.includes(id))).toEqual([]);
    const result = await rebuildProjections(lake.pool);
    expect(result.events).toBeGreaterThan(0);
    expect(await readProjections(lake.pool, groups)).toEqual(incremental);
  }, 300_000); // 8 runs × 4 lakes × 50 events: ~40 s alone, far more beside the whole suite on the shared host.
});
