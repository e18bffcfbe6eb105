import { createHash, createHmac, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runErasure } from '../../../cli/privacy/run-erasure.js';
import { eventIdFromName } from '../../../collector/event-id.js';
import { importChatExport } from '../../../lake/index.js';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { postSigned, startTestIngestServer } from '../../helpers/ingest-test-server.js';
import { useFreshLakes, type TestLake } from '../../helpers/lake-databases.js';
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

// ADR 0027: the lake itself refuses to bring an erased member back, whatever path an event takes after `forget`.
describe('erasure tombstones', () => {
  const lakes = useFreshLakes(2);

  const group = newGroupJid();
  const erased = newMember();
  const other = newMember();
  const day = new Date('2030-01-02T10:00:00Z');
  const at = (minutes: number): Date => new Date(day.getTime() + minutes * 60_000);
  const texts = [`erased words one ${randomUUID()}`, `erased words two ${randomUUID()}`];
  const firstId = randomUUID();
  /** Stored before `forget` in both lakes. */
  const early: Array<{ eventId: string; body: string }> = [
    { eventId: randomUUID(), body: metadataBody(group, [erased, other], at(0).toISOString()) },
    { eventId: randomUUID(), body: messageBody(group, erased, texts[0] ?? '', at(1), { id: firstId }) },
  ];
  /** In flight during `forget` (a replay, a dead letter, a captured request): stored after it in the second lake. */
  const late: Array<{ eventId: string; body: string }> = [
    { eventId: randomUUID(), body: messageBody(group, erased, texts[1] ?? '', at(2)) },
    {
      eventId: randomUUID(),
      body: messageBody(group, other, 'a reply', at(3), { replyTo: { id: firstId, author: erased } }),
    },
    { eventId: randomUUID(), body: reactionBody(group, erased, { id: firstId, author: erased }, at(4)) },
  ];
  const traces = (member: Member): string[] => [member.phone, member.lid.split('@')[0] ?? '', ...texts];

  const forget = (lake: TestLake, participant: string, force = false) =>
    runErasure({
      erasureKey: TEST_ERASURE_KEY,
      pool: lake.pool,
      outboxPath: join('/nonexistent', randomUUID()),
      temporalClient: null,
      participant,
      requestedBy: 'dpo@example.org',
      force,
    });
  const importExport = (lake: TestLake, groupJid: string, text: string) =>
    importChatExport(lake.pool, {
      groupJid,
      text,
      timeZone: 'UTC',
      eventIdOf: eventIdFromName,
      erasureKey: TEST_ERASURE_KEY,
    });
  /** Engagement with each run's random pseudonym written the same way, so two lakes compare. */
  const engagementOf = async (lake: TestLake): Promise<unknown> =>
    JSON.parse(JSON.stringify(await readEngagement(lake.pool)).replace(/erased-[0-9a-f-]{36}@erased/g, 'ERASED'));

  it('stores events delivered after forget pseudonymized, with the numbers of forget alone', async () => {
    const alone = lakes.at(0).lake;
    for (const event of [...early, ...late])
      expect(await alone.store(event.eventId, event.body, at(10))).toBe('stored');
    await forget(alone, `+${erased.phone}`);

    const inFlight = lakes.at(1).lake;
    for (const event of early) expect(await inFlight.store(event.eventId, event.body, at(10))).toBe('stored');
    await forget(inFlight, `+${erased.phone}`);
    // The repository read the tombstones before forget committed: the INSERT's fence makes it read them again.
    const [signedPost, ...rest] = late;
    for (const event of rest) expect(await inFlight.store(event.eventId, event.body, at(10))).toBe('stored');
    // A signed request captured before forget and sent again after it (or a dead letter replayed): the same door.
    const server = await startTestIngestServer(lakes.at(1).url);
    try {
      const answer = await postSigned(server.url, signedPost?.body ?? '', { eventId: signedPost?.eventId });
      expect(answer.status).toBe(201);
      const again = await postSigned(server.url, early[1]?.body ?? '', { eventId: early[1]?.eventId });
      expect(again.status).toBe(200);
    } finally {
      await server.close();
    }

    const text = await dumpLakeText(inFlight.pool);
    for (const trace of traces(erased)) expect(text).not.toContain(trace);
    expect(text).not.toContain(`Name of ${erased.phone}`);
    expect(text).toContain(other.phone);
    expect(await engagementOf(inFlight)).toEqual(await engagementOf(alone));
  });

  it('keys the tombstone hash with ERASURE_KEY, which the database never holds', async () => {
    const lake = lakes.at(1).lake;
    const { rows } = await lake.pool.query<{ identifier_hash: string }>(
      'SELECT identifier_hash FROM whatsapp_erasure_tombstones'
    );
    const digits = erased.phone;
    const keyed = createHmac('sha256', TEST_ERASURE_KEY).update(`user:${digits}`).digest('hex');
    const hashes = rows.map((row) => row.identifier_hash);
    expect(hashes).toContain(keyed);
    expect(hashes).not.toContain(createHash('sha256').update(digits).digest('hex'));
    expect(hashes).not.toContain(
      createHmac('sha256', 'another key of 32 characters...').update(`user:${digits}`).digest('hex')
    );
    // The erasure missed the outbox: its pending row (ADR 0017) holds the same keyed hashes, no salt.
    const pending = await lake.pool.query<{ salt: string | null; keyed: boolean; user_hashes: string[] }>(
      'SELECT salt, keyed, user_hashes FROM whatsapp_pending_erasures'
    );
    expect(pending.rows).toHaveLength(1);
    expect(pending.rows[0]).toMatchObject({ salt: null, keyed: true });
    expect(pending.rows[0]?.user_hashes).toContain(keyed);
    const text = await dumpLakeText(lake.pool);
    expect(text).not.toContain(TEST_ERASURE_KEY);
  });

  it('recognises a pending erasure an earlier version salted, and rewrites it keyed', async () => {
    const lake = lakes.at(0).lake;
    const member = newMember();
    await lake.pool.query('DELETE FROM whatsapp_pending_erasures');
    const salt = 'a'.repeat(32);
    await lake.pool.query(`INSERT INTO whatsapp_pending_erasures (id, salt, user_hashes) VALUES ($1, $2, $3)`, [
      randomUUID(),
      salt,
      [createHash('sha256').update(`${salt}:${member.phone}`).digest('hex')],
    ]);
    const report = await forget(lake, `+${member.phone}`);
    expect(report.continuedPendingErasure).toBe(true);
    const { rows } = await lake.pool.query<{ salt: string | null; keyed: boolean; user_hashes: string[] }>(
      'SELECT salt, keyed, user_hashes FROM whatsapp_pending_erasures'
    );
    expect(rows).toEqual([
      {
        salt: null,
        keyed: true,
        user_hashes: [createHmac('sha256', TEST_ERASURE_KEY).update(`user:${member.phone}`).digest('hex')],
      },
    ]);
  });

  it('stores a later chat export of an erased sender, by name or phone number, as forget left the lake', async () => {
    const lake = lakes.at(0).lake;
    const exportGroup = newGroupJid();
    const importText = (text: string) => importExport(lake, exportGroup, text);
    const secret = `exported words ${randomUUID()}`;
    await importText(`1/13/25 10:00 - Finn Erased: ${secret}\n`);
    await runErasure({
      erasureKey: TEST_ERASURE_KEY,
      pool: lake.pool,
      outboxPath: join('/nonexistent', randomUUID()),
      temporalClient: null,
      participant: 'name:Finn Erased',
      requestedBy: 'dpo@example.org',
    });
    // A newer export overlapping the first: new messages of the erased name and of the erased phone number.
    const later = `later words ${randomUUID()}`;
    const imported = await importText(
      `1/13/25 10:00 - Finn Erased: ${secret}\n1/14/25 09:00 - Finn Erased: ${later}\n` +
        `1/14/25 09:01 - +${erased.phone}: ${later} by phone\n1/14/25 09:02 - Kept Sender: kept words\n`
    );
    expect(imported.inserted).toBe(3);
    const text = await dumpLakeText(lake.pool);
    for (const trace of ['Finn Erased', secret, later, erased.phone]) expect(text).not.toContain(trace);
    expect(text).toContain('kept words');
    const { rows } = await lake.pool.query<{ participant: string | null }>(
      `SELECT payload->'key'->>'participant' AS participant FROM whatsapp_event_logs
        WHERE chat_jid = $1 AND payload->'message'->>'_redacted' = 'true' ORDER BY occurred_at`,
      [exportGroup]
    );
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.participant).toMatch(/^erased-[0-9a-f-]{36}@erased$/);
  });

  it('writes no tombstone for a name: forget refuses, and one when it is forced', async () => {
    const lake = lakes.at(0).lake;
    const tombstones = async (): Promise<number> =>
      (await lake.pool.query('SELECT 1 FROM whatsapp_erasure_tombstones')).rowCount ?? 0;
    const before = await tombstones();
    const run = (participant: string, force: boolean) => forget(lake, participant, force);
    expect((await run('name:Nobody Here', false)).refused).toBe(true);
    expect(await tombstones()).toBe(before);
    const words = `first words ${randomUUID()}`;
    const exportGroup = newGroupJid();
    const importText = (text: string) => importExport(lake, exportGroup, text);
    await importText(`1/15/25 10:00 - Nobody Here: ${words}\n`);
    const text = await dumpLakeText(lake.pool);
    expect(text).toContain(words);
    expect(text).toContain('Nobody Here');

    // Forced, a name no export holds yet gets its tombstone: erased ahead of its first message.
    const forced = await run('name:Nobody Yet', true);
    expect(forced.refused).toBe(false);
    // Files wa-lake wrote earlier (exports, reports) are not searched: the report says so.
    expect(forced.notReached).toContain(
      "files wa-lake itself wrote earlier (wa-lake export --participant output, the demo's engagement-report.html, " +
        'report --html/--json/--csv files, export --parquet folders): not searched; delete or regenerate them by hand'
    );
    expect(await tombstones()).toBe(before + 1);
  });
});
