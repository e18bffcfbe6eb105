import fc from 'fast-check';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { filterEvent } from '../../../collector/edge-filter.js';
import { DEFAULT_BODY_LIMITS, prepareItem } from '../../../collector/prepare-item.js';
import { historyPush } from '../../fixtures/collector/history-push.js';
import { readProjections, useFreshLakes } from '../../helpers/lake-databases.js';

/**
 * ADR 0016: a group's facts seen live, in a history push, or both, stored in any order, give one
 * row per event and the same projections; history copies of what the lake saw live change no number.
 * Live events and the push go through the collector's own filter and keys, as the session hands them over.
 */

const T0 = Date.parse('2024-03-10T02:59:00Z') / 1000;
const SELF = '5500000000000:3@s.whatsapp.net';

interface Jids {
  group: string;
  lid: (p: number) => string;
  phone: (p: number) => string;
}
const runJids = (run: number): Jids => {
  const stamp = `${String(run).padStart(4, '0')}${String(Date.now()).slice(-6)}`;
  return {
    group: `120363${stamp}77@g.us`,
    lid: (p) => `2${stamp}${String(p).padStart(3, '0')}@lid`,
    phone: (p) => `56${stamp}${String(p).padStart(3, '0')}@s.whatsapp.net`,
  };
};

/** One thing that happened in the group; `live`/`history` say which copies the lake gets. */
type Fact =
  | { kind: 'message'; id: string; p: number; t: number; replyTo: string | null; revokedAt: number | null }
  | { kind: 'reaction'; target: string; p: number; text: string; t: number }
  | { kind: 'stub'; id: string; p: number; added: number; t: number };
type Seen = { fact: Fact; live: boolean; history: boolean; bareKey: boolean };

const messageIds = ['M0', 'M1', 'M2', 'M3'];
const factArbitrary: fc.Arbitrary<Fact> = fc.oneof(
  fc.record({
    kind: fc.constant('message' as const),
    id: fc.constantFrom(...messageIds),
    p: fc.nat({ max: 2 }),
    t: fc.integer({ min: T0, max: T0 + 120 }),
    replyTo: fc.option(fc.constantFrom(...messageIds)),
    revokedAt: fc.option(fc.integer({ min: T0 + 200, max: T0 + 300 })),
  }),
  fc.record({
    kind: fc.constant('reaction' as const),
    target: fc.constantFrom(...messageIds),
    p: fc.nat({ max: 2 }),
    text: fc.constantFrom('👍', '🔥'),
    t: fc.integer({ min: T0, max: T0 + 300 }),
  }),
  fc.record({
    kind: fc.constant('stub' as const),
    id: fc.constantFrom('S0', 'S1'),
    p: fc.nat({ max: 2 }),
    added: fc.nat({ max: 2 }),
    t: fc.integer({ min: T0, max: T0 + 300 }),
  })
);
const seenArbitrary: fc.Arbitrary<Seen> = fc
  .record({ fact: factArbitrary, copies: fc.constantFrom('live', 'history', 'both'), bareKey: fc.boolean() })
  .map(({ fact, copies, bareKey }) => ({ fact, live: copies !== 'history', history: copies !== 'live', bareKey }));

/** One message id is one message: the first fact naming it wins, later ones are dropped. */
function distinctFacts(seen: Seen[]): Seen[] {
  const byId = new Map<string, Seen>();
  const out: Seen[] = [];
  for (const entry of seen) {
    const { fact } = entry;
    const id = fact.kind === 'reaction' ? `R${fact.target}${fact.p}` : fact.id;
    if (byId.has(id)) continue;
    byId.set(id, entry);
    out.push(entry);
  }
  // A reaction's history copy lives on its target's history copy (`WebMessageInfo.reactions`).
  const historyTargets = new Set(
    out.filter((s) => s.history && s.fact.kind === 'message').map((s) => (s.fact as { id: string }).id)
  );
  return out.map((s) =>
    s.fact.kind === 'reaction' && s.history && !historyTargets.has(s.fact.target)
      ? { ...s, history: false, live: true }
      : s
  );
}

const keyOf = (jids: Jids, id: string, p: number) => ({
  remoteJid: jids.group,
  fromMe: false,
  id,
  participant: jids.lid(p),
  participantAlt: jids.phone(p),
});
const content = (fact: Extract<Fact, { kind: 'message' }>, jids: Jids) =>
  fact.replyTo
    ? { extendedTextMessage: { text: 'hi', contextInfo: { stanzaId: fact.replyTo, participant: jids.lid(0) } } }
    : { conversation: 'hello group' };
const reactionOf = (fact: Extract<Fact, { kind: 'reaction' }>, jids: Jids) => ({
  key: keyOf(jids, `R${fact.target}${fact.p}`, fact.p),
  text: fact.text,
  senderTimestampMs: fact.t * 1000,
});
const stubOf = (fact: Extract<Fact, { kind: 'stub' }>, jids: Jids) => ({
  key: keyOf(jids, fact.id, fact.p),
  messageTimestamp: fact.t,
  messageStubType: 27,
  messageStubParameters: [JSON.stringify({ id: jids.lid(fact.added), phoneNumber: jids.phone(fact.added) })],
});

/** The Baileys events a live session emits for the facts (rc14 shapes: `process-message.js`). */
function liveEvents(seen: Seen[], jids: Jids): Array<[string, unknown]> {
  const events: Array<[string, unknown]> = [];
  // Baileys' live reaction names its target by the target's own key (sender included).
  const senderOf = (id: string): number =>
    seen.map((s) => s.fact).find((f) => f.kind === 'message' && f.id === id)?.p ?? 0;
  for (const { fact } of seen.filter((s) => s.live)) {
    if (fact.kind === 'message') {
      const message = { key: keyOf(jids, fact.id, fact.p), messageTimestamp: fact.t, message: content(fact, jids) };
      events.push(['messages.upsert', { type: 'notify', messages: [message] }]);
      if (fact.revokedAt !== null) {
        const revoke = {
          key: keyOf(jids, `D${fact.id}`, fact.p),
          messageTimestamp: fact.revokedAt,
          message: { protocolMessage: { key: { remoteJid: jids.group, fromMe: false, id: fact.id }, type: 0 } },
        };
        events.push(['messages.upsert', { type: 'notify', messages: [revoke] }]);
        const update = { message: null, messageStubType: 1, key: revoke.key };
        events.push(['messages.update', [{ key: { ...revoke.key, id: fact.id }, update }]]);
      }
    } else if (fact.kind === 'reaction') {
      const reaction = reactionOf(fact, jids);
      events.push(['messages.reaction', [{ key: keyOf(jids, fact.target, senderOf(fact.target)), reaction }]]);
    } else {
      events.push(['messages.upsert', { type: 'notify', messages: [stubOf(fact, jids)] }]);
    }
  }
  return events;
}

/**
 * The push a linked device receives for the facts with a history copy: a deleted message as the phone
 * keeps it (REVOKE stub with `revokeMessageTimestamp`), reactions on their target, and (`bareKey`) the
 * sender only in `WebMessageInfo.participant` as a phone JID, mapped to the LID by the push itself.
 */
function historyOf(seen: Seen[], jids: Jids, keep: (s: Seen) => boolean): Record<string, unknown> {
  const messages: Array<Record<string, unknown>> = [];
  const chosen = seen.filter((s) => s.history && keep(s));
  // A chosen reaction travels on its target, so the target's history copy comes along (a duplicate if live).
  const carriers = new Set(chosen.flatMap((s) => (s.fact.kind === 'reaction' ? [s.fact.target] : [])));
  const carried = seen.filter(
    (s) => s.history && !chosen.includes(s) && s.fact.kind === 'message' && carriers.has(s.fact.id)
  );
  for (const entry of [...chosen, ...carried]) {
    const { fact } = entry;
    if (fact.kind === 'reaction') continue;
    if (fact.kind === 'stub') {
      messages.push(stubOf(fact, jids));
      continue;
    }
    const key = entry.bareKey ? { remoteJid: jids.group, fromMe: false, id: fact.id } : keyOf(jids, fact.id, fact.p);
    const reactions = chosen
      .map((s) => s.fact)
      .filter((f): f is Extract<Fact, { kind: 'reaction' }> => f.kind === 'reaction' && f.target === fact.id)
      .map((f) => reactionOf(f, jids));
    const body =
      fact.revokedAt === null
        ? { message: content(fact, jids) }
        : { messageStubType: 1, revokeMessageTimestamp: fact.revokedAt };
    messages.push({
      key,
      messageTimestamp: fact.t,
      ...(entry.bareKey ? { participant: jids.phone(fact.p) } : {}),
      ...body,
      ...(reactions.length > 0 ? { reactions } : {}),
    });
  }
  const mappings = [0, 1, 2].map((p) => ({ lid: jids.lid(p), pn: jids.phone(p) }));
  return historyPush([{ id: jids.group, messages }], { mappings });
}

interface Delivery {
  eventId: string;
  body: string;
  order: number;
}
/** Bodies and ids exactly as the collector's pipeline writes them to its outbox. */
function deliveriesOf(events: Array<[string, unknown]>, orders: () => number): Delivery[] {
  const capturedAt = new Date('2030-01-01T00:00:00Z').toISOString();
  return events.flatMap(([name, data]) =>
    filterEvent(name, data).kept.map((kept) => {
      const prepared = prepareItem(kept, capturedAt, SELF, DEFAULT_BODY_LIMITS, { source: kept.source ?? 'live' });
      if (prepared.kind !== 'pending') throw new Error(`unexpected dead row: ${prepared.row.reason}`);
      return { eventId: prepared.row.eventId, body: prepared.row.body, order: orders() };
    })
  );
}

async function readModel(pool: pg.Pool, group: string): Promise<Record<string, unknown[]>> {
  const queries: Record<string, string> = {
    messages: `SELECT * FROM whatsapp_messages WHERE chat_jid = $1 ORDER BY message_id`,
    reactions: `SELECT target_id, reactor_id, text, reacted_at FROM whatsapp_message_reactions WHERE chat_jid = $1 ORDER BY 1, 2`,
    memberDays: `SELECT * FROM engagement_member_day_totals WHERE group_jid = $1 ORDER BY 1, 2, 3`,
    memberDaily: `SELECT * FROM engagement_member_daily WHERE group_jid = $1 ORDER BY participant_id, day`,
    groupDaily: `SELECT * FROM engagement_group_daily WHERE group_jid = $1 ORDER BY day`,
  };
  const result: Record<string, unknown[]> = {};
  for (const [name, sql] of Object.entries(queries)) result[name] = (await pool.query(sql, [group])).rows;
  return { ...result, ...(await readProjections(pool, [group])) };
}

const fresh = useFreshLakes(5);

describe('history and live copies in any order (ADR 0016)', () => {
  it('stores each event once, keeps the first copy’s source, and gives the same projections and engagement numbers', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(seenArbitrary, { minLength: 6, maxLength: 24 }), fc.nat(), async (drawn, seed) => {
        run += 1;
        const jids = runJids(run);
        const seen = distinctFacts(drawn);
        let next = seed;
        const random = () => (next = (next * 1103515245 + 12345) % 2 ** 31);
        const live = deliveriesOf(liveEvents(seen, jids), random);
        const history = deliveriesOf([['messaging-history.set', historyOf(seen, jids, () => true)]], random);
        const historyOnly = deliveriesOf([['messaging-history.set', historyOf(seen, jids, (s) => !s.live)]], random);
        const orders = [
          [...live, ...history],
          [...history, ...live],
          [...live, ...history].sort((a, b) => a.order - b.order),
        ];
        for (const [index, order] of orders.entries())
          for (const delivery of order) await fresh.at(index).lake.store(delivery.eventId, delivery.body);
        const concurrent = fresh.at(3).lake;
        for (let pass = 0; pass < 2; pass += 1)
          await Promise.all([...history, ...live].map((d) => concurrent.store(d.eventId, d.body)));
        // What the lake holds without the history copies of facts it saw live.
        for (const delivery of [...live, ...historyOnly]) await fresh.at(4).lake.store(delivery.eventId, delivery.body);

        const ids = new Set([...live, ...history].map((d) => d.eventId));
        const [first, ...others] = await Promise.all(fresh.lakes.slice(0, 4).map((l) => readModel(l.pool, jids.group)));
        for (const other of others) expect(other).toEqual(first);
        const withoutCopies = await readModel(fresh.at(4).lake.pool, jids.group);
        for (const view of ['messages', 'reactions', 'memberDays', 'memberDaily', 'groupDaily', 'memberships'])
          expect(withoutCopies[view]).toEqual(first?.[view]);

        const liveIds = new Set(live.map((d) => d.eventId));
        const sources = async (index: number) =>
          (
            await fresh
              .at(index)
              .lake.pool.query<{ event_id: string; source: string }>(
                `SELECT event_id, source FROM whatsapp_event_logs WHERE event_id = ANY($1::uuid[])`,
                [[...ids]]
              )
          ).rows;
        const liveFirst = await sources(0);
        expect(liveFirst).toHaveLength(ids.size);
        for (const row of liveFirst) expect(row.source).toBe(liveIds.has(row.event_id) ? 'live' : 'history');
        const historyIds = new Set(history.map((d) => d.eventId));
        for (const row of await sources(1)) expect(row.source).toBe(historyIds.has(row.event_id) ? 'history' : 'live');
      }),
      { numRuns: 10, endOnFailure: true }
    );
  });
});
