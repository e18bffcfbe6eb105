import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { runErasure } from '../../../cli/privacy/run-erasure.js';
import { runParticipantExport } from '../../../cli/privacy/run-participant-export.js';
import { parseJsonKeepingIntegers } from '../../../common/exact-json-text.js';
import { linkMembers, type ParticipantExport } from '../../../lake/index.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import {
  messageBody,
  metadataBody,
  newGroupJid,
  newMember,
  reactionBody,
  type Member,
} from '../../helpers/lake-privacy-fixtures.js';

// ADR 0014 decision 7 (LGPD Art. 18 I–II and V) against real PostgreSQL.
const fresh = useFreshLake();
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-export-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exportOf = async (identifier: string): Promise<{ data: ParticipantExport; json: string; html: string }> => {
  const written = await runParticipantExport({
    pool: fresh.lake.pool,
    identifier,
    outDir: join(dir, randomUUID()),
    requestedBy: 'dpo@example.org',
    temporalNamespace: 'default',
  });
  expect(statSync(written.jsonPath).mode & 0o077).toBe(0);
  const json = readFileSync(written.jsonPath, 'utf8');
  return {
    data: parseJsonKeepingIntegers(json) as ParticipantExport,
    json,
    html: readFileSync(written.htmlPath, 'utf8'),
  };
};

describe('wa-lake export --participant', () => {
  const group = newGroupJid();
  const [ana, caio] = [newMember(), newMember()] as [Member, Member];
  const anaText = `ana private words ${randomUUID()}`;
  const caioText = `caio says <script>alert(1)</script> ${randomUUID()}`;
  const anaMessageId = randomUUID();
  const accountId = `acct-${randomUUID()}`;

  beforeAll(async () => {
    const at = new Date(Date.now() - 3 * 86_400_000);
    const later = (ms: number): Date => new Date(at.getTime() + ms);
    for (const event of [
      metadataBody(group, [ana, caio], at.toISOString()),
      messageBody(group, ana, anaText, later(1_000), { id: anaMessageId }),
      messageBody(group, caio, caioText, later(2_000), { replyTo: { id: anaMessageId, author: ana } }),
      reactionBody(group, caio, { id: anaMessageId, author: ana }, later(3_000)),
    ])
      expect(await fresh.lake.store(randomUUID(), event)).toBe('stored');
    await linkMembers(fresh.lake.pool, [{ participantId: caio.lid, memberId: 'discord:4242', name: 'Caio C.' }], 'cli');
    const keyId = randomUUID();
    await fresh.lake.pool.query(
      `INSERT INTO send_api_keys (id, name, account_id, key_hash, key_prefix) VALUES ($1, 't', $2, $3, 'wal_t')`,
      [keyId, accountId, randomUUID().replaceAll('-', '').padEnd(64, '0')]
    );
    await fresh.lake.pool.query(`INSERT INTO send_opt_ins (account_id, phone_jid, note) VALUES ($1, $2, 'form')`, [
      accountId,
      caio.phoneJid,
    ]);
    await fresh.lake.pool.query(
      `INSERT INTO outbound_messages (id, api_key_id, account_id, idempotency_key, request_hash, to_jid, text,
                                      category, metadata, state, wa_message_id)
       VALUES ($1, $2, $3, 'k1', $4, $5, 'your order shipped', 'transactional', '{"order": 12345678901234567890}',
               'delivered', '3EB0EXPORTTEST01')`,
      [randomUUID(), keyId, accountId, 'a'.repeat(64), caio.phoneJid]
    );
  });

  it("writes every kind of the member's data, the same by phone, LID and member id, and none of another's", async () => {
    const byPhone = await exportOf(`+${caio.phone}`);
    const { data } = byPhone;
    expect(data).toMatchObject({ schema: 'wa-lake/participant-export', schemaVersion: 1, isFound: true });
    expect(data.identifiers.jids).toEqual(expect.arrayContaining([caio.lid, caio.phoneJid]));
    expect(data.identifiers.phoneNumbers).toEqual([`+${caio.phone}`]);
    expect(data.identifiers.memberIds).toEqual(['discord:4242']);
    expect(data.messages).toHaveLength(1);
    expect(data.messages[0]).toMatchObject({ text: caioText, replyToMessageId: anaMessageId, deletedAt: null });
    expect(data.displayNames).toEqual([expect.objectContaining({ kind: 'push', name: `Name of ${caio.phone}` })]);
    expect(data.reactionsGiven).toEqual([expect.objectContaining({ targetMessageId: anaMessageId, reaction: '🔥' })]);
    expect(data.memberships).toEqual([expect.objectContaining({ groupJid: group, role: 'member' })]);
    expect(data.memberLinks).toEqual([expect.objectContaining({ memberId: 'discord:4242', name: 'Caio C.' })]);
    expect(data.engagement.groups).toEqual([
      expect.objectContaining({ groupJid: group, activeDays: 1, messages: 1, replies: 1, level: 'active' }),
    ]);
    expect(data.engagement.criteria).toContain('lurker');
    expect(data.messagesSentToThem).toEqual([
      expect.objectContaining({ text: 'your order shipped', metadata: { order: 12345678901234567890n } }),
    ]);
    expect(data.optIns).toEqual([expect.objectContaining({ accountId, note: 'form' })]);
    expect(data.notReached.join('\n')).toContain('Temporal workflow histories');
    // Another member's content never: not ana's text, not her phone number.
    expect(byPhone.json).not.toContain(anaText);
    expect(byPhone.json).not.toContain(ana.phone);
    expect(byPhone.json).toContain('12345678901234567890');
    expect(byPhone.html).toContain("content=\"default-src 'none'; style-src 'unsafe-inline'\"");
    expect(byPhone.html).not.toContain('<script>');
    expect(byPhone.html).toContain('caio says &lt;script&gt;alert(1)&lt;/script&gt;');

    for (const identifier of [caio.lid, 'discord:4242']) {
      const again = (await exportOf(identifier)).data;
      expect({ ...again, generatedAt: '', request: null, notReached: [] }).toEqual({
        ...data,
        generatedAt: '',
        request: null,
        notReached: [],
      });
    }
    const { rows } = await fresh.lake.pool.query<{ run: string }>(
      `SELECT r::text AS run FROM whatsapp_access_requests r`
    );
    expect(rows).toHaveLength(3);
    for (const row of rows)
      for (const value of [caio.phone, caio.lid.split('@')[0]!, '4242']) expect(row.run).not.toContain(value);
  });

  it('holds only the pseudonym after forget', async () => {
    await runErasure({
      erasureKey: TEST_ERASURE_KEY,
      pool: fresh.lake.pool,
      outboxPath: join(dir, 'no-outbox.sqlite'),
      temporalClient: null,
      participant: caio.lid,
      requestedBy: 'dpo@example.org',
    });
    const byOldPhone = await exportOf(`+${caio.phone}`);
    expect(byOldPhone.data.isFound).toBe(false);
    expect(byOldPhone.data.messages).toEqual([]);

    const { rows } = await fresh.lake.pool.query<{ id: string }>(
      `SELECT id FROM whatsapp_participants WHERE id LIKE 'erased-%@erased'`
    );
    expect(rows).toHaveLength(1);
    const pseudonym = rows[0]!.id;
    const byPseudonym = await exportOf(pseudonym);
    expect(byPseudonym.data.isFound).toBe(true);
    expect(byPseudonym.data.identifiers).toEqual({ jids: [pseudonym], phoneNumbers: [], memberIds: [] });
    expect(byPseudonym.data.messages).toEqual([expect.objectContaining({ text: null, isRedacted: true })]);
    expect(byPseudonym.data.messagesSentToThem).toEqual([expect.objectContaining({ text: null, metadata: null })]);
    expect(byPseudonym.data.optIns).toEqual([]);
    for (const value of [caio.phone, caio.lid.split('@')[0]!, caioText, 'Caio C.', 'discord:4242', 'your order'])
      expect(byPseudonym.json).not.toContain(value);
  });
});
