import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runErasure } from '../../../cli/privacy/run-erasure.js';
import { OutboxStore } from '../../../collector/outbox-store.js';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { useFreshLakes, type TestLake } from '../../helpers/lake-databases.js';
import {
  body,
  dumpLakeText,
  messageBody,
  metadataBody,
  newGroupJid,
  newMember,
  type Member,
} from '../../helpers/lake-privacy-fixtures.js';

/**
 * A reply of another member that quotes the erased member's message and names them in its text, as WhatsApp writes
 * it: `contextInfo.quotedMessage` holds a copy of their words, the text holds `@<phone>` (or `@<lid digits>`).
 */
function quotingReply(group: string, author: Member, quoted: { id: string; member: Member; text: string }, at: Date) {
  const lidDigits = quoted.member.lid.split('@')[0] ?? '';
  return body(
    'messages.upsert',
    group,
    {
      key: { remoteJid: group, fromMe: false, id: randomUUID(), participant: author.lid },
      messageTimestamp: Math.floor(at.getTime() / 1000),
      pushName: 'Replier',
      message: {
        extendedTextMessage: {
          text: `replying to @${quoted.member.phone} (also @${lidDigits}) about it`,
          contextInfo: {
            stanzaId: quoted.id,
            participant: quoted.member.lid,
            mentionedJid: [quoted.member.phoneJid],
            quotedMessage: { conversation: quoted.text },
          },
        },
      },
    },
    at.toISOString()
  );
}

/** A message of `member` sent from a JID in `form` (hosted, device, legacy server…). */
const messageFrom = (group: string, jid: string, text: string, at: Date): string =>
  body(
    'messages.upsert',
    group,
    {
      key: { remoteJid: group, fromMe: false, id: randomUUID(), participant: jid },
      messageTimestamp: Math.floor(at.getTime() / 1000),
      pushName: 'Sender name',
      message: { conversation: text },
    },
    at.toISOString()
  );

/** Every JID form of one member's account: phone and LID, with device, legacy and hosted servers. */
const jidForms = (member: Member): string[] => {
  const lid = member.lid.split('@')[0] ?? '';
  return [
    `${member.phone}:2@s.whatsapp.net`,
    `${member.phone}@c.us`,
    `${member.phone}@hosted`,
    `${member.phone}:99@hosted`,
    `${lid}:3@lid`,
    `${lid}@hosted.lid`,
    `${lid}:99@hosted.lid`,
  ];
};

// ADR 0027: other members' replies and mentions must not tie the pseudonym back to the erased member's number.
describe('forget and the erased member in other members’ messages', () => {
  const lakes = useFreshLakes(2);
  const dir = mkdtempSync(join(tmpdir(), 'wa-lake-erased-refs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const day = new Date('2030-03-04T10:00:00Z');
  const at = (minutes: number): Date => new Date(day.getTime() + minutes * 60_000);
  const forget = (lake: TestLake, participant: string, outboxPath: string) =>
    runErasure({
      erasureKey: TEST_ERASURE_KEY,
      pool: lake.pool,
      outboxPath,
      temporalClient: null,
      participant,
      requestedBy: 'dpo@example.org',
    });
  const traces = (member: Member, words: string): string[] => [member.phone, member.lid.split('@')[0] ?? '', words];

  it('redacts quoted copies and @mentions of the member in the lake and the outbox at forget time', async () => {
    const { lake } = lakes.at(0);
    const group = newGroupJid();
    const [erased, other] = [newMember(), newMember()];
    const words = `the erased member's own words ${randomUUID()}`;
    const original = { id: randomUUID(), member: erased, text: words };
    expect(await lake.store(randomUUID(), metadataBody(group, [erased, other], at(0).toISOString()))).toBe('stored');
    expect(await lake.store(randomUUID(), messageBody(group, erased, words, at(1), { id: original.id }))).toBe(
      'stored'
    );
    expect(await lake.store(randomUUID(), quotingReply(group, other, original, at(2)))).toBe('stored');
    const outboxPath = join(dir, `${randomUUID()}.sqlite`);
    const outbox = OutboxStore.open({ path: outboxPath });
    const reply = quotingReply(group, other, original, at(3));
    outbox.enqueueBatch([{ eventId: randomUUID(), type: 'messages.upsert', chatJid: group, body: reply }], Date.now());
    outbox.close();

    const vacuumCount = async (): Promise<number> =>
      Number(
        (
          await lake.pool.query<{ n: string }>(
            `SELECT vacuum_count AS n FROM pg_stat_user_tables WHERE relname = 'whatsapp_event_logs'`
          )
        ).rows[0]?.n ?? 0
      );
    const vacuumsBefore = await vacuumCount();

    const report = await forget(lake, `+${erased.phone}`, outboxPath);

    expect(report.counts.outboxRowsRewritten).toBe(1);
    // The replaced row versions are vacuumed; the WAL and backups are named as not reached (ADR 0027).
    expect(report.vacuumedTables).toContain('whatsapp_event_logs');
    expect(await vacuumCount()).toBeGreaterThan(vacuumsBefore);
    expect(report.notReached.some((line) => line.startsWith('PostgreSQL write-ahead log, archives and backups:'))).toBe(
      true
    );
    const lakeText = await dumpLakeText(lake.pool);
    for (const trace of traces(erased, words)) expect(lakeText).not.toContain(trace);
    expect(lakeText).toContain('replying to @erased-');
    expect(lakeText).toContain(other.lid);
    const reopened = OutboxStore.open({ path: outboxPath });
    try {
      const bodies: string[] = [];
      // Read only: the transform keeps every row as it is.
      reopened.rewriteBodies([group], (stored) => {
        bodies.push(stored.body);
        return null;
      });
      expect(bodies).toHaveLength(1);
      for (const trace of traces(erased, words)) expect(bodies[0]).not.toContain(trace);
      const stored = JSON.parse(bodies[0] ?? '{}') as {
        payload: { message: { extendedTextMessage: { text: string; contextInfo: Record<string, unknown> } } };
      };
      const { text, contextInfo } = stored.payload.message.extendedTextMessage;
      expect(text).toMatch(/^replying to @erased-[0-9a-f-]{36} \(also @erased-[0-9a-f-]{36}\) about it$/);
      expect(contextInfo['quotedMessage']).toEqual({ conversation: null, _redacted: true });
      expect(contextInfo['participant']).toMatch(/^erased-[0-9a-f-]{36}@erased$/);
    } finally {
      reopened.close();
    }
  });

  it('stores a quoting reply and every JID form of the member delivered after forget without their number', async () => {
    const { lake } = lakes.at(1);
    const group = newGroupJid();
    const [erased, other] = [newMember(), newMember()];
    const words = `words quoted later ${randomUUID()}`;
    expect(await lake.store(randomUUID(), metadataBody(group, [erased, other], at(0).toISOString()))).toBe('stored');
    await forget(lake, `+${erased.phone}`, join(dir, 'no-outbox', randomUUID()));
    const { rows: tombstones } = await lake.pool.query<{ pseudonym: string }>(
      'SELECT DISTINCT pseudonym FROM whatsapp_erasure_tombstones'
    );
    expect(tombstones).toHaveLength(1);
    const pseudonym = tombstones[0]?.pseudonym ?? '';

    const replyId = randomUUID();
    const original = { id: randomUUID(), member: erased, text: words };
    expect(await lake.store(replyId, quotingReply(group, other, original, at(5)))).toBe('stored');
    const formIds = new Map<string, string>();
    for (const [index, jid] of jidForms(erased).entries()) {
      const eventId = randomUUID();
      formIds.set(jid, eventId);
      expect(await lake.store(eventId, messageFrom(group, jid, `${words} ${index}`, at(6 + index)))).toBe('stored');
    }

    const lakeText = await dumpLakeText(lake.pool);
    for (const trace of traces(erased, words)) expect(lakeText).not.toContain(trace);
    const { rows } = await lake.pool.query<{ event_id: string; participant: string; message: unknown }>(
      `SELECT event_id, payload #>> '{key,participant}' AS participant, payload -> 'message' AS message
         FROM whatsapp_event_logs WHERE event_id = ANY($1::uuid[])`,
      [[...formIds.values()]]
    );
    expect(rows).toHaveLength(formIds.size);
    for (const row of rows) {
      expect(row.participant).toBe(pseudonym);
      expect(row.message).toEqual({ conversation: null, _redacted: true });
    }
  });
});
