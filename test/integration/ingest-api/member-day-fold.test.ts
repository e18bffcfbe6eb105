import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createRootLogger } from '../../../common/logger.js';
import { loadIngestConfig } from '../../../ingest-api/config.js';
import { foldMemberDayDeltas, recountMemberDays } from '../../../ingest-api/db/member-day-deltas.js';
import { startMemberDayFoldSchedule } from '../../../ingest-api/member-day-fold-schedule.js';
import { startIngestServer } from '../../../ingest-api/server.js';
import { reactionMessage, textMessage, undecryptable } from '../../helpers/message-events.js';
import { silentLogger } from '../../helpers/silent-logger.js';
import { useFreshLake } from './lake-databases.js';
import { SECRET_A, messageBody, postSigned } from './ingest-test-server.js';

// ADR 0012 (issue #11 item 7): the ingest statement appends rollup deltas; folds move them into
// engagement_member_days. Readers must see the same numbers whenever a fold runs, and every delta must
// count exactly once however many folds run at once.
const GROUP = '120363000000000131@g.us';
const sender = (n: number): string => `1000000000${String(n).padStart(5, '0')}@lid`;
const T0 = Date.UTC(2026, 5, 1, 12) / 1000;

const rows = async (pool: pg.Pool, sql: string): Promise<unknown[]> =>
  (await pool.query<Record<string, unknown>>(sql)).rows;
const TOTALS = `SELECT * FROM engagement_member_day_totals ORDER BY 1, 2, 3`;
const FOLDED = `SELECT group_jid, participant_key, day, messages, replies, reactions_given FROM engagement_member_days
                 WHERE (messages, replies, reactions_given) <> (0, 0, 0) ORDER BY 1, 2, 3`;
const PENDING = `SELECT count(*)::int AS n FROM engagement_member_day_deltas`;

const fresh = useFreshLake();

describe('engagement rollup deltas and their fold (ADR 0012)', () => {
  it('counts every delta once while two folders run during concurrent ingest; the fold equals a recount', async () => {
    const bodies: object[] = [];
    for (let i = 0; i < 240; i += 1) {
      const key = { group: GROUP, id: `3EB0F${String(i).padStart(11, '0')}`, sender: sender(i % 30) };
      // Every 8th message first arrives as its undecryptable placeholder a day earlier: the real one
      // replaces it, which appends −1 on the placeholder's day and +1 on the message's.
      if (i % 8 === 0) bodies.push(undecryptable(key, T0 - 86_400));
      bodies.push(textMessage(key, T0 + i * 60));
      if (i % 5 === 0) bodies.push(reactionMessage(key, sender((i + 1) % 30), '👍', (T0 + i * 60 + 30) * 1000));
    }
    let isIngesting = true;
    let folded = 0;
    const folder = async (): Promise<void> => {
      while (isIngesting) folded += await foldMemberDayDeltas(fresh.lake.pool);
    };
    const folders = [folder(), folder()];
    for (let start = 0; start < bodies.length; start += 16) {
      const chunk = bodies.slice(start, start + 16);
      const stored = await Promise.all(chunk.map((body) => fresh.lake.store(randomUUID(), JSON.stringify(body))));
      expect(stored.every((status) => status === 'stored')).toBe(true);
    }
    isIngesting = false;
    await Promise.all(folders);
    expect(folded).toBeGreaterThan(0);

    const totalsBeforeLastFold = await rows(fresh.lake.pool, TOTALS);
    await foldMemberDayDeltas(fresh.lake.pool);
    expect(await rows(fresh.lake.pool, PENDING)).toEqual([{ n: 0 }]);
    expect(await rows(fresh.lake.pool, TOTALS)).toEqual(totalsBeforeLastFold);
    const foldedRows = await rows(fresh.lake.pool, FOLDED);
    // 30 senders on one day (the placeholders' day nets to zero); the reactors are among them.
    expect(foldedRows).toHaveLength(30);
    const client = await fresh.lake.pool.connect();
    try {
      await recountMemberDays(client);
    } finally {
      client.release();
    }
    expect(await rows(fresh.lake.pool, FOLDED)).toEqual(foldedRows);
    const sums = await fresh.lake.pool.query<{ messages: number; reactions: number }>(
      `SELECT sum(messages)::int AS messages, sum(reactions_given)::int AS reactions FROM engagement_member_days`
    );
    expect(sums.rows[0]).toEqual({ messages: 240, reactions: 48 });
  });

  it('is done by the ingest API every ENGAGEMENT_FOLD_INTERVAL_MS, and once more when it closes', async () => {
    await fresh.lake.pool.query('TRUNCATE engagement_member_days, engagement_member_day_deltas');
    const config = loadIngestConfig({
      DATABASE_URL: fresh.url,
      WHATSAPP_WEBHOOK_SECRET: SECRET_A,
      INGEST_PORT: '0',
      ENGAGEMENT_FOLD_INTERVAL_MS: '50',
    });
    const server = await startIngestServer({ config, logger: silentLogger() });
    try {
      expect((await postSigned(server.url, messageBody(), { eventId: randomUUID() })).status).toBe(201);
      let pending = 1;
      for (let attempt = 0; attempt < 200 && pending > 0; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        pending = (await fresh.lake.pool.query<{ n: number }>(PENDING)).rows[0]?.n ?? -1;
      }
      expect(pending).toBe(0);
      expect(await rows(fresh.lake.pool, 'SELECT participant_key, messages FROM engagement_member_days')).toEqual([
        { participant_key: '100000000000001@lid', messages: 1 },
      ]);
    } finally {
      await server.close();
    }
  });

  it('warns once while the fold keeps failing, not once per tick, and says when it works again', async () => {
    const logged: { level: number; msg: string; failures?: number }[] = [];
    const logger = createRootLogger({
      level: 'info',
      destination: { write: (line: string) => void logged.push(JSON.parse(line) as (typeof logged)[number]) },
    });
    const warnings = (): typeof logged => logged.filter((line) => line.level === 40);
    const waitFor = async (done: () => boolean): Promise<void> => {
      for (let attempt = 0; attempt < 400 && !done(); attempt += 1) await new Promise((r) => setTimeout(r, 10));
    };
    // A lake migrated without the deltas table (e.g. a replica ahead of its migrations): every fold fails.
    await fresh.lake.pool.query('ALTER TABLE engagement_member_day_deltas RENAME TO engagement_member_day_deltas_away');
    const schedule = startMemberDayFoldSchedule({ pool: fresh.lake.pool, intervalMs: 5, logger });
    try {
      await waitFor(() => warnings().length > 0);
      await new Promise((resolve) => setTimeout(resolve, 300)); // tens of failing runs more
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]?.failures).toBe(1);
      expect(warnings()[0]?.msg).toMatch(/fold failed/);
    } finally {
      await fresh.lake.pool.query(
        'ALTER TABLE engagement_member_day_deltas_away RENAME TO engagement_member_day_deltas'
      );
    }
    await waitFor(() => logged.some((line) => line.msg.includes('works again')));
    await schedule.stop();
    const recovered = logged.find((line) => line.msg.includes('works again'));
    expect(recovered?.failures).toBeGreaterThan(1);
    expect(warnings()).toHaveLength(1);
  });
});
