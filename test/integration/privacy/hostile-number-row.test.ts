import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { runErasure } from '../../../cli/privacy/run-erasure.js';
import { rebuildProjections } from '../../../lake/events/rebuild-projections.js';
import { redactOldMessageBodies } from '../../../lake/privacy/redact-old-message-bodies.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import { messageBody, metadataBody, newGroupJid, newMember, type Member } from '../../helpers/lake-privacy-fixtures.js';

// ADR 0014: a row stored before ingest normalized numbers (inserted here by SQL, as it sat in the
// lake) holds 10,000 copies of 1e131071: 3 KB on disk, over 1 GB as text. Maintenance must skip and name it.
const DAY_MS = 86_400_000;
const fresh = useFreshLake();

async function seedWithHostileRow(): Promise<{ ana: Member; text: string; hostileEventId: string }> {
  const group = newGroupJid();
  const [ana, bia] = [newMember(), newMember()] as [Member, Member];
  const old = new Date(Date.now() - 200 * DAY_MS);
  const text = `old words ${randomUUID()}`;
  expect(await fresh.lake.store(randomUUID(), metadataBody(group, [ana, bia], old.toISOString()))).toBe('stored');
  expect(await fresh.lake.store(randomUUID(), messageBody(group, ana, text, old))).toBe('stored');
  const hostileEventId = randomUUID();
  const numbers = Array.from({ length: 10_000 }, () => '1e131071').join(',');
  const payload = `{"key":{"remoteJid":"${group}","id":"${randomUUID()}","participant":"${bia.lid}"},"messageTimestamp":${Math.floor(old.getTime() / 1000)},"message":{"conversation":"x","n":[${numbers}]}}`;
  await fresh.lake.pool.query(
    `INSERT INTO whatsapp_event_logs
       (id, event_id, type, chat_jid, payload, received_at, captured_at, upsert_type, occurred_at, sanitized)
     VALUES (gen_random_uuid(), $1, 'messages.upsert', $2, $3::jsonb, $4, $4, 'notify', $4, false)`,
    [hostileEventId, group, payload, old]
  );
  return { ana, text, hostileEventId };
}

describe('maintenance with a row PostgreSQL cannot render (ADR 0014)', () => {
  // Each attempt to render the row makes PostgreSQL build ~1 GB of text before it refuses: a slow test.
  it('forget, rebuild and retention apply each succeed and name the hostile row', { timeout: 300_000 }, async () => {
    const { ana, text, hostileEventId } = await seedWithHostileRow();

    const report = await runErasure({
      erasureKey: TEST_ERASURE_KEY,
      pool: fresh.lake.pool,
      outboxPath: join('/nonexistent', randomUUID()),
      temporalClient: null,
      participant: ana.lid,
      requestedBy: 'dpo@example.org',
    });
    expect(report.counts.lake.messageBodiesRedacted).toBe(1);
    expect(report.notReached.some((line) => line.includes(`lake event ${hostileEventId}`))).toBe(true);
    const { rows: left } = await fresh.lake.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM whatsapp_event_logs WHERE event_id <> $1 AND payload::text LIKE $2`,
      [hostileEventId, `%${text}%`]
    );
    expect(left[0]?.n).toBe(0);

    const rebuilt = await rebuildProjections(fresh.lake.pool);
    expect(rebuilt.skipped.map((row) => row.eventId)).toEqual([hostileEventId]);
    expect(rebuilt.events).toBeGreaterThanOrEqual(2);

    const retention = await redactOldMessageBodies(fresh.lake.pool, new Date(Date.now() - DAY_MS), {
      requestedBy: 'test',
    });
    expect(retention.skipped.map((row) => row.eventId)).toEqual([hostileEventId]);
  });
});
