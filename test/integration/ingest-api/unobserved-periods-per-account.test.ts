import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldUnobservedPeriods } from '../../../lake/projections/unobserved-periods.js';
import { useFreshLakes, type TestLake } from '../../helpers/lake-databases.js';

/**
 * Unobserved periods per account, combined per group (ADR 0019 "Coverage per account"): two linked accounts feed one
 * lake, each collector's copy of a shared event carries its own `account_jid`/`account_lid`, and the first stored
 * copy wins the raw row. Which account a removal is about, whether the group is out of sight, and the joins and
 * leaves of members must not depend on which copy that was.
 */
const ACCOUNTS = [
  { jid: '5500000002790@s.whatsapp.net', lid: '20000000002790@lid' },
  { jid: '5500000002791@s.whatsapp.net', lid: '20000000002791@lid' },
] as const;
const iso = (s: number): string => new Date(s * 1000).toISOString();

const fresh = useFreshLakes(4);

/** A collector's `collector.session` open beat: it names its account (phone JID and LID) in a row of its own. */
function openBeat(account: (typeof ACCOUNTS)[number], group: string, atS: number): { eventId: string; body: string } {
  const payload = {
    account_jid: account.jid,
    account_lid: account.lid,
    at_ms: atS * 1000,
    state: 'open',
    interval_ms: 300_000,
    groups: [group],
  };
  return {
    eventId: randomUUID(),
    body: JSON.stringify({ type: 'collector.session', chat_jid: null, captured_at: iso(atS), payload }),
  };
}

/** A membership stub (27 add, 28 remove, 32 leave) naming `member`, as the collector of `copy` delivers it. */
function stubBody(group: string, id: string, t: number, stubType: number, member: string, copy: number): string {
  const account = ACCOUNTS[copy] ?? ACCOUNTS[0];
  return JSON.stringify({
    type: 'messages.upsert',
    chat_jid: group,
    captured_at: iso(t + 30 + copy * 7),
    upsert_type: 'append',
    account_jid: account.jid,
    account_lid: account.lid,
    payload: {
      key: { remoteJid: group, id, fromMe: false, participant: '20000000002799@lid' },
      messageTimestamp: t,
      messageStubType: stubType,
      messageStubParameters: [JSON.stringify({ id: member })],
    },
  });
}

async function readFigures(lake: TestLake, group: string): Promise<Record<string, unknown[]>> {
  const q = async (sql: string): Promise<unknown[]> =>
    (await lake.pool.query<Record<string, unknown>>(sql, [group])).rows;
  return {
    accounts: await q(
      `SELECT account_jid, started_at, ended_at FROM whatsapp_account_unobserved_periods WHERE group_jid = $1
        ORDER BY 1, 2, 3`
    ),
    group: await q(
      `SELECT started_at, ended_at FROM whatsapp_group_unobserved_periods WHERE group_jid = $1 ORDER BY 1, 2`
    ),
    changes: await q(
      `SELECT participant_id, at, change FROM engagement_membership_changes WHERE group_jid = $1 ORDER BY 1, 2, 3`
    ),
    memberships: await q(
      `SELECT participant_id, joined_at, left_at FROM whatsapp_group_memberships WHERE group_jid = $1 ORDER BY 1`
    ),
  };
}

describe('unobserved periods per account, combined per group (ADR 0019)', () => {
  it("tells a removal of the second account as that account's time out, whichever collector's copy is stored", async () => {
    const group = '120363000000027900@g.us';
    const [a, b] = ACCOUNTS;
    const removalId = randomUUID();
    const readdId = randomUUID();
    const copies = (copy: number) => [
      { eventId: removalId, body: stubBody(group, '3EB0C27900000000000001', 1_709_564_400, 28, b.lid, copy) },
      { eventId: readdId, body: stubBody(group, '3EB0C27900000000000002', 1_709_737_200, 27, b.lid, copy) },
    ];
    const beats = [openBeat(a, group, 1_709_500_000), openBeat(b, group, 1_709_500_000)];
    // Lake 0: A's copies first (they name A, not B); lake 1: B's first; lake 2: A's copies only, beats last.
    const orders = [
      [...beats, ...copies(0), ...copies(1)],
      [...beats, ...copies(1), ...copies(0)],
      [...copies(0), ...beats],
    ];
    for (const [index, order] of orders.entries())
      for (const delivery of order) await fresh.at(index).lake.store(delivery.eventId, delivery.body);
    for (const index of [0, 1, 2]) {
      const figures = await readFigures(fresh.at(index).lake, group);
      expect(figures).toEqual({
        accounts: [
          { account_jid: b.jid, started_at: new Date(1_709_564_400_000), ended_at: new Date(1_709_737_200_000) },
        ],
        // A stayed in the group: it was never out of sight.
        group: [],
        // B's removal and re-add are no member's leave and join.
        changes: [],
        memberships: [{ participant_id: b.lid, joined_at: new Date(1_709_737_200_000), left_at: null }],
      });
    }
  });

  it('gives the same per-account and per-group periods, joins and leaves for any delivery order, duplicates and two collectors', async () => {
    const MEMBERS = 2;
    const seconds = fc.integer({ min: 1_700_000_000, max: 1_700_000_020 });
    // Who a stub names: a member (0, 1) or an account (2: A, 3: B), by LID or phone JID.
    const event = fc.record({
      t: seconds,
      who: fc.nat({ max: MEMBERS + 1 }),
      stubType: fc.constantFrom(27, 28, 32),
      byPhone: fc.boolean(),
      copies: fc.subarray([0, 1], { minLength: 1 }),
      isRepeated: fc.boolean(),
      key: fc.nat(),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 16, maxLength: 16 }), async (events) => {
        run += 1;
        const group = `120363${String(run).padStart(4, '0')}${String(Date.now()).slice(-6)}79@g.us`;
        const jidOf = (who: number, byPhone: boolean): string => {
          const account = ACCOUNTS[who - MEMBERS];
          if (account) return byPhone ? account.jid : account.lid;
          return byPhone ? `55000000027${run}${who}@s.whatsapp.net` : `2000000027${run}${who}@lid`;
        };
        const deliveries = events.flatMap(({ t, who, stubType, byPhone, copies, isRepeated, key }, index) => {
          const eventId = randomUUID();
          const id = `3EB0C279${String(run).padStart(4, '0')}${String(index).padStart(10, '0')}`;
          return copies.flatMap((copy) => {
            const delivery = {
              eventId,
              key: key + copy,
              body: stubBody(group, id, t, stubType, jidOf(who, byPhone), copy),
            };
            return isRepeated ? [delivery, delivery] : [delivery];
          });
        });
        // Each collector names its account in a row of its own (its beats).
        const beats = ACCOUNTS.map((account, index) => ({ ...openBeat(account, group, 1_699_999_000), key: index }));
        const all = [...deliveries, ...beats];
        const orders = [all, [...all].reverse(), [...all].sort((x, y) => x.key - y.key)];
        for (const [index, order] of orders.entries())
          for (const delivery of order) await fresh.at(index).lake.store(delivery.eventId, delivery.body);
        await Promise.all(all.map((delivery) => fresh.at(3).lake.store(delivery.eventId, delivery.body)));
        const [first, ...others] = await Promise.all(fresh.lakes.map((lake) => readFigures(lake, group)));
        for (const other of others) expect(other).toEqual(first);
        await expectTheFoldOfEachAccount(fresh.at(0).lake, group);
        const changes = (first?.['changes'] ?? []) as Array<{ participant_id: string }>;
        const accountJids: string[] = ACCOUNTS.flatMap((account) => [account.jid, account.lid]);
        expect(changes.filter((change) => accountJids.includes(change.participant_id))).toEqual([]);
      }),
      { numRuns: 8, endOnFailure: true }
    );
  }, 300_000);
});

type Span = { startedAtMs: number; endedAtMs: number | null };

/**
 * Each account's periods are `foldUnobservedPeriods` of its facts; the group's, their intersection (merged): both
 * accounts' sessions list the group, so an account with no fact there was in it all along.
 */
async function expectTheFoldOfEachAccount(lake: TestLake, group: string): Promise<void> {
  const perAccount: Span[][] = [];
  for (const account of ACCOUNTS) {
    const { rows } = await lake.pool.query<{ event_id: string; at_ms: string; is_present: boolean; is_timed: boolean }>(
      `SELECT event_id, (extract(epoch FROM at) * 1000)::bigint AS at_ms, is_present, is_timed
         FROM whatsapp_membership_facts WHERE group_jid = $1 AND participant_id = ANY($2::text[])`,
      [group, [account.jid, account.lid]]
    );
    const expected = foldUnobservedPeriods(
      rows.map((row) => ({
        eventId: row.event_id,
        atMs: Number(row.at_ms),
        isPresent: row.is_present,
        role: null,
        isTimed: row.is_timed,
      }))
    );
    const stored = await lake.pool.query<{ started_at: Date; ended_at: Date | null }>(
      `SELECT started_at, ended_at FROM whatsapp_account_unobserved_periods WHERE group_jid = $1 AND account_jid = $2`,
      [group, account.jid]
    );
    const sort = (spans: Span[]): Span[] => [...spans].sort((x, y) => x.startedAtMs - y.startedAtMs);
    expect(
      sort(
        stored.rows.map((row) => ({
          startedAtMs: row.started_at.getTime(),
          endedAtMs: row.ended_at?.getTime() ?? null,
        }))
      )
    ).toEqual(sort(expected));
    perAccount.push(expected);
  }
  const combined = perAccount.reduce((acc, spans) => intersect(acc, merge(spans)), [
    { startedAtMs: Number.NEGATIVE_INFINITY, endedAtMs: null },
  ] as Span[]);
  const { rows } = await lake.pool.query<{ started_at: Date; ended_at: Date | null }>(
    `SELECT started_at, ended_at FROM whatsapp_group_unobserved_periods WHERE group_jid = $1 ORDER BY started_at`,
    [group]
  );
  expect(
    rows.map((row) => ({ startedAtMs: row.started_at.getTime(), endedAtMs: row.ended_at?.getTime() ?? null }))
  ).toEqual(combined);
}

const end = (span: Span): number => span.endedAtMs ?? Number.POSITIVE_INFINITY;

/** Sorted, overlapping or touching spans joined (as `range_agg` does). */
function merge(spans: readonly Span[]): Span[] {
  const out: Span[] = [];
  for (const span of [...spans].sort((x, y) => x.startedAtMs - y.startedAtMs)) {
    const last = out.at(-1);
    if (last && span.startedAtMs <= end(last)) last.endedAtMs = end(span) > end(last) ? span.endedAtMs : last.endedAtMs;
    else out.push({ ...span });
  }
  return out;
}

function intersect(left: readonly Span[], right: readonly Span[]): Span[] {
  const out: Span[] = [];
  for (const x of left)
    for (const y of right) {
      const startedAtMs = Math.max(x.startedAtMs, y.startedAtMs);
      const endedAtMs = Math.min(end(x), end(y));
      if (endedAtMs > startedAtMs)
        out.push({ startedAtMs, endedAtMs: endedAtMs === Number.POSITIVE_INFINITY ? null : endedAtMs });
    }
  return merge(out);
}
