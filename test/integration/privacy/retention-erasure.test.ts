import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { runErasure } from '../../../cli/privacy/run-erasure.js';
import { OutboxStore } from '../../../collector/outbox-store.js';
import type { ProgressReport } from '../../../common/progress-meter.js';
import { rebuildProjections } from '../../../lake/events/rebuild-projections.js';
import { redactOldMessageBodies } from '../../../lake/privacy/redact-old-message-bodies.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import {
  dumpLakeText,
  messageBody,
  metadataBody,
  newGroupJid,
  newMember,
  reactionBody,
  readEngagement,
  type Member,
} from '../../helpers/lake-privacy-fixtures.js';

// ADR 0010 against real PostgreSQL (a fresh migrated database per file) and a real SQLite outbox.
const DAY_MS = 86_400_000;
const fresh = useFreshLake();
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-forget-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** One group with three members, old and recent messages, a reply and a reaction. */
async function seedGroup(): Promise<{ group: string; members: Member[]; oldText: string; recentText: string }> {
  const group = newGroupJid();
  const members = [newMember(), newMember(), newMember()];
  const [ana, bia, caio] = members as [Member, Member, Member];
  const old = new Date(Date.now() - 200 * DAY_MS);
  const recent = new Date(Date.now() - 2 * DAY_MS);
  const oldText = `old words ${randomUUID()}`;
  const recentText = `recent words ${randomUUID()}`;
  const firstId = randomUUID();
  const events = [
    metadataBody(group, members, old.toISOString()),
    messageBody(group, ana, oldText, old, { id: firstId }),
    messageBody(group, bia, `reply ${randomUUID()}`, new Date(old.getTime() + 60_000), {
      replyTo: { id: firstId, author: ana },
    }),
    reactionBody(group, caio, { id: firstId, author: ana }, new Date(old.getTime() + 120_000)),
    messageBody(group, caio, recentText, recent),
  ];
  for (const event of events) expect(await fresh.lake.store(randomUUID(), event)).toBe('stored');
  return { group, members, oldText, recentText };
}

describe('wa-lake retention apply', () => {
  it('redacts old message bodies and leaves every engagement number as it was', async () => {
    const seeded = await seedGroup();
    const before = await readEngagement(fresh.lake.pool);
    const retentionProgress: ProgressReport[] = [];
    const result = await redactOldMessageBodies(fresh.lake.pool, new Date(Date.now() - 90 * DAY_MS), {
      requestedBy: 'test',
      batchSize: 1,
      onProgress: (report) => retentionProgress.push(report),
    });
    expect(result.redactedEvents).toBe(2);
    // One report per batch, counted against the rows to redact (ADR 0017).
    expect(retentionProgress.map(({ done, total, percent }) => [done, total, percent])).toEqual([
      [1, 2, 50],
      [2, 2, 100],
    ]);
    expect(retentionProgress.at(-1)).toMatchObject({ phase: 'message bodies', etaSeconds: 0 });
    expect(await readEngagement(fresh.lake.pool)).toEqual(before);
    const rebuildProgress: ProgressReport[] = [];
    const rebuilt = await rebuildProjections(fresh.lake.pool, { onProgress: (report) => rebuildProgress.push(report) });
    expect(await readEngagement(fresh.lake.pool)).toEqual(before);
    const lastOf = (phase: string) => rebuildProgress.filter((report) => report.phase === phase).at(-1);
    expect(lastOf('projections')).toMatchObject({ done: rebuilt.events, total: rebuilt.events, percent: 100 });
    expect(lastOf('messages')).toMatchObject({ done: rebuilt.messageEvents, total: rebuilt.messageEvents });

    const text = await dumpLakeText(fresh.lake.pool);
    expect(text).not.toContain(seeded.oldText);
    expect(text).not.toContain('quoted words');
    expect(text).toContain(seeded.recentText);
    const again = await redactOldMessageBodies(fresh.lake.pool, new Date(Date.now() - 90 * DAY_MS), {
      requestedBy: 'test',
    });
    expect(again.redactedEvents).toBe(0);
    const { rows } = await fresh.lake.pool.query(`SELECT requested_by, redacted_events FROM whatsapp_retention_runs`);
    expect(rows).toEqual([
      { requested_by: 'test', redacted_events: 2 },
      { requested_by: 'test', redacted_events: 0 },
    ]);
  });
});

describe('wa-lake forget', () => {
  it("erases one member's data in the lake and the outbox, keeps the counts, and is idempotent", async () => {
    const seeded = await seedGroup();
    const [, bia, caio] = seeded.members as [Member, Member, Member];
    const outboxPath = join(dir, 'outbox.sqlite');
    const outbox = OutboxStore.open({ path: outboxPath });
    const pendingText = `pending words ${randomUUID()}`;
    outbox.enqueueBatch(
      [
        {
          eventId: randomUUID(),
          type: 'messages.upsert',
          chatJid: seeded.group,
          body: messageBody(seeded.group, caio, pendingText, new Date()),
        },
        {
          eventId: randomUUID(),
          type: 'messages.upsert',
          chatJid: seeded.group,
          body: messageBody(seeded.group, bia, 'bia keeps this', new Date()),
        },
      ],
      Date.now()
    );
    outbox.close();
    const before = await readEngagement(fresh.lake.pool);

    const report = await runErasure({
      erasureKey: TEST_ERASURE_KEY,
      pool: fresh.lake.pool,
      outboxPath,
      temporalClient: null,
      participant: `+${caio.phone}`,
      requestedBy: 'dpo@example.org',
    });

    expect(report.counts.lake.messageBodiesRedacted).toBe(1);
    expect(report.counts.lake.aliasesDeleted + report.counts.lake.participantsDeleted).toBeGreaterThan(0);
    expect(report.counts.outboxRowsRewritten).toBe(1);
    expect(report.notReached.join('\n')).toMatch(/Temporal workflow histories/);
    expect(report.notReached.join('\n')).toMatch(/capture files/);
    expect(report.notReached.join('\n')).toMatch(/dead-letter entries: Temporal not reachable/);

    const text = await dumpLakeText(fresh.lake.pool);
    const caioDigits = [caio.phone, caio.lid.split('@')[0] ?? ''];
    for (const value of [...caioDigits, seeded.recentText]) expect(text).not.toContain(value);
    expect(text).toContain(bia.phone);
    const reopened = OutboxStore.open({ path: outboxPath });
    const bodies = [...reopened.listDue(10, Date.now() + 1)].map((row) => row.body).join('\n');
    reopened.close();
    for (const value of [...caioDigits, pendingText]) expect(bodies).not.toContain(value);
    expect(bodies).toContain('bia keeps this');

    // Engagement keeps one anonymous member in Caio's place: the same numbers of everything.
    const after = await readEngagement(fresh.lake.pool);
    expect(after['memberships']).toEqual(before['memberships']);
    expect(after['eventsByTypeChatDay']).toEqual(before['eventsByTypeChatDay']);
    expect(after['participants']).not.toEqual([]);

    const { rows } = await fresh.lake.pool.query<{ requested_by: string; run: string }>(
      `SELECT requested_by, r::text AS run FROM whatsapp_erasure_runs r`
    );
    expect(rows.map((row) => row.requested_by)).toEqual(['dpo@example.org']);
    for (const value of caioDigits) expect(rows[0]?.run).not.toContain(value);

    const second = await runErasure({
      erasureKey: TEST_ERASURE_KEY,
      pool: fresh.lake.pool,
      outboxPath,
      temporalClient: null,
      participant: caio.lid,
      requestedBy: 'dpo@example.org',
    });
    expect(second.counts.lake).toEqual({
      messageBodiesRedacted: 0,
      aliasesDeleted: 0,
      participantsDeleted: 0,
      memberLinksDeleted: 0,
      pseudonymized: {},
      optInsDeleted: 0,
      testRecipientsDeleted: 0,
      sentMessagesRedacted: 0,
    });
    expect(second.counts.outboxRowsRewritten).toBe(0);
  });

  it('gives the pseudonym exactly the rollup totals the member had under its LID and phone JID', async () => {
    const group = newGroupJid();
    const [ana, caio] = [newMember(), newMember()];
    const caioByPhone: Member = { ...caio, lid: caio.phoneJid };
    const day1 = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - 10 * DAY_MS + 12 * 3_600_000);
    const day2 = new Date(day1.getTime() + DAY_MS);
    const anaFirst = randomUUID();
    const store = async (...events: string[]): Promise<void> => {
      for (const event of events) expect(await fresh.lake.store(randomUUID(), event)).toBe('stored');
    };
    await store(
      metadataBody(group, [ana, caio], day1.toISOString()),
      messageBody(group, ana, 'ana day 1', day1, { id: anaFirst }),
      messageBody(group, caio, 'caio day 1', new Date(day1.getTime() + 60_000))
    );
    // Caio under his phone JID on day 1 (a second key of the same day), and on day 2.
    await store(
      messageBody(group, caioByPhone, 'caio by phone', new Date(day1.getTime() + 120_000), {
        replyTo: { id: anaFirst, author: ana },
      }),
      messageBody(group, caio, 'caio day 2', day2),
      reactionBody(group, caio, { id: anaFirst, author: ana }, new Date(day2.getTime() + 60_000)),
      messageBody(group, ana, 'ana day 2', new Date(day2.getTime() + 120_000))
    );

    await runErasure({
      erasureKey: TEST_ERASURE_KEY,
      pool: fresh.lake.pool,
      outboxPath: join(dir, `rollup-${randomUUID()}.sqlite`),
      temporalClient: null,
      participant: caio.lid,
      requestedBy: 'dpo@example.org',
    });

    const { rows } = await fresh.lake.pool.query<{ key: string }>(
      `SELECT participant_key AS key, to_char(day, 'YYYY-MM-DD') AS day, messages, replies, reactions_given
         FROM engagement_member_day_totals WHERE group_jid = $1 ORDER BY participant_key = $2 DESC, day`,
      [group, ana.lid]
    );
    const pseudonym = rows.find((row) => row.key !== ana.lid)?.key ?? '';
    expect(pseudonym).toMatch(/^erased-.+@erased$/);
    const day = (at: Date): string => at.toISOString().slice(0, 10);
    expect(rows).toEqual([
      { key: ana.lid, day: day(day1), messages: 1, replies: 0, reactions_given: 0 },
      { key: ana.lid, day: day(day2), messages: 1, replies: 0, reactions_given: 0 },
      { key: pseudonym, day: day(day1), messages: 2, replies: 1, reactions_given: 0 },
      { key: pseudonym, day: day(day2), messages: 1, replies: 0, reactions_given: 1 },
    ]);
  });
});
