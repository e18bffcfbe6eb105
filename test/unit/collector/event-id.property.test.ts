import fc from 'fast-check';
import { v5 as uuidv5 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { deriveEventId, EVENT_ID_NAMESPACE, eventIdFromName } from '../../../collector/event-id.js';
import { normalizeItem } from '../../../collector/normalize/normalize-value.js';
import { decodedLong, GROUP } from '../../fixtures/collector/baileys-events.js';

const idOf = (type: string, raw: unknown): string =>
  deriveEventId({ type, chatJid: GROUP, item: normalizeItem(type, raw), selfJid: null });

/** Deterministic Fisher–Yates driven by a seed (fast-check shrinks the seed). */
function shuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** Rebuilds every object with its keys in a seed-dependent order (values unchanged). */
function reorderKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((element, i) => reorderKeys(element, seed + i));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    shuffle(Object.entries(value), seed).map(([key, child], i) => [key, reorderKeys(child, seed * 31 + i)])
  );
}

const role = fc.constantFrom(null, 'admin', 'superadmin');
const participant = fc.record({
  id: fc.stringMatching(/^[0-9]{6,15}$/).map((user) => `${user}@lid`),
  phoneNumber: fc.stringMatching(/^[0-9]{6,13}$/).map((user) => `${user}@s.whatsapp.net`),
  admin: role,
});
const snapshot = fc.record({
  id: fc.constant(GROUP),
  subject: fc.string({ unit: 'grapheme', maxLength: 30 }),
  desc: fc.option(fc.string({ unit: 'grapheme', maxLength: 60 }), { nil: undefined }),
  announce: fc.boolean(),
  restrict: fc.boolean(),
  creation: fc.integer({ min: 1_500_000_000, max: 1_900_000_000 }),
  participants: fc.uniqueArray(participant, { selector: (p) => p.id, minLength: 1, maxLength: 8 }),
});

describe('deriveEventId properties', () => {
  it('computes the same UUIDv5 as the uuid package for every well-formed name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (name) => {
        expect(eventIdFromName(name)).toBe(uuidv5(name, EVENT_ID_NAMESPACE));
      })
    );
  });

  it('does not change with object key order at any depth', () => {
    fc.assert(
      fc.property(snapshot, fc.integer(), (group, seed) => {
        expect(idOf('groups.metadata', reorderKeys(group, seed))).toBe(idOf('groups.metadata', group));
      })
    );
  });

  it('does not change with participant order', () => {
    fc.assert(
      fc.property(snapshot, fc.integer(), (group, seed) => {
        expect(idOf('groups.metadata', { ...group, participants: shuffle(group.participants, seed) })).toBe(
          idOf('groups.metadata', group)
        );
      })
    );
  });

  it('does not change with the representation of Longs and bytes', () => {
    const longForms = (value: bigint) => {
      const low = Number(BigInt.asIntN(32, value));
      const high = Number(BigInt.asIntN(32, value >> 32n));
      return [value.toString(), { low, high, unsigned: true }, decodedLong({ low, high, unsigned: true }), value];
    };
    const byteForms = (bytes: Uint8Array) => [
      Buffer.from(bytes),
      new Uint8Array(bytes),
      JSON.parse(JSON.stringify(Buffer.from(bytes))) as unknown,
      { type: 'Buffer', data: Buffer.from(bytes).toString('base64') },
      { ...bytes },
    ];
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.uint8Array({ minLength: 1, maxLength: 40 }),
        fc.nat(3),
        fc.nat(4),
        (long, bytes, longForm, byteForm) => {
          const item = (timestamp: unknown, mediaKey: unknown) => ({
            key: { remoteJid: GROUP, id: 'U1' },
            update: { messageTimestamp: timestamp, message: { imageMessage: { mediaKey, fileLength: timestamp } } },
          });
          const reference = idOf('messages.update', item(longForms(long)[0], byteForms(bytes)[0]));
          expect(idOf('messages.update', item(longForms(long)[longForm], byteForms(bytes)[byteForm]))).toBe(reference);
        }
      )
    );
  });

  it('does not change with volatile fields', () => {
    const volatile = fc.record(
      {
        size: fc.nat(),
        notify: fc.string(),
        ownerPn: fc.string(),
        subjectOwnerUsername: fc.string(),
        addressingMode: fc.constantFrom('lid', 'pn'),
      },
      { requiredKeys: [] }
    );
    fc.assert(
      fc.property(snapshot, volatile, (group, noise) => {
        // A size above the list would make it partial, whose size is part of the key (ADR 0007).
        const size = noise.size === undefined ? {} : { size: Math.min(noise.size, group.participants.length) };
        expect(idOf('groups.metadata', { ...group, ...noise, ...size })).toBe(idOf('groups.metadata', group));
      })
    );
    const message = fc.record({
      pushName: fc.string(),
      status: fc.integer({ min: 0, max: 5 }),
      broadcast: fc.boolean(),
      participantAlt: fc.string(),
      retryCount: fc.nat(),
    });
    fc.assert(
      fc.property(message, message, (a, b) => {
        const update = (noise: typeof a) => ({
          key: { remoteJid: GROUP, id: 'V1', participantAlt: noise.participantAlt },
          pushName: noise.pushName,
          update: {
            status: noise.status,
            broadcast: noise.broadcast,
            retryCount: noise.retryCount,
            message: { conversation: 'same' },
          },
        });
        expect(idOf('messages.update', update(a))).toBe(idOf('messages.update', update(b)));
      })
    );
  });

  it('changes with any real content change', () => {
    type Group = typeof snapshot extends fc.Arbitrary<infer G> ? G : never;
    const mutations: Array<fc.Arbitrary<(group: Group) => Group | undefined>> = [
      fc
        .string({ unit: 'grapheme', maxLength: 30 })
        .map((subject) => (group) => (subject === group.subject ? undefined : { ...group, subject })),
      fc.constant((group: Group) => ({ ...group, announce: !group.announce })),
      fc.tuple(fc.nat(), role).map(([index, admin]) => (group) => {
        const target = group.participants[index % group.participants.length];
        if (!target || target.admin === admin) return undefined;
        return { ...group, participants: group.participants.map((p) => (p === target ? { ...p, admin } : p)) };
      }),
      participant.map(
        (extra) => (group) =>
          group.participants.some((p) => p.id === extra.id)
            ? undefined
            : { ...group, participants: [...group.participants, extra] }
      ),
      fc
        .nat()
        .map(
          (index) => (group) =>
            group.participants.length < 2
              ? undefined
              : { ...group, participants: group.participants.filter((_, i) => i !== index % group.participants.length) }
        ),
    ];
    fc.assert(
      fc.property(snapshot, fc.oneof(...mutations), (group, mutate) => {
        const changed = mutate(group);
        fc.pre(changed !== undefined);
        expect(idOf('groups.metadata', changed)).not.toBe(idOf('groups.metadata', group));
      })
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (before, after) => {
        fc.pre(before !== after);
        const edit = (text: string) => ({
          key: { remoteJid: GROUP, id: 'E1' },
          update: { message: { editedMessage: { conversation: text } } },
        });
        expect(idOf('messages.update', edit(after))).not.toBe(idOf('messages.update', edit(before)));
      })
    );
  });
});
