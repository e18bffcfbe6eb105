import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ERASURE_KEY } from '../../helpers/erasure-key.js';
import { LinkedAccountIdentifierError, runErasure } from '../../../cli/privacy/run-erasure.js';
import { OutboxStore } from '../../../collector/outbox-store.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';
import { useFreshLake } from '../../helpers/lake-databases.js';
import {
  dumpLakeText,
  messageBody,
  metadataBody,
  newGroupJid,
  newMember,
  type Member,
} from '../../helpers/lake-privacy-fixtures.js';

// ADR 0014 decision 5 against real PostgreSQL and a real Temporal dev server (for the printed queries).
const fresh = useFreshLake();
let temporal: DevTemporal;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wa-lake-forget-send-'));
  OutboxStore.open({ path: join(dir, 'outbox.sqlite') }).close();
  temporal = await startDevTemporal({ dataConverter: null });
});
afterAll(async () => {
  await temporal?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function newApiKey(accountId: string): Promise<string> {
  const id = randomUUID();
  await fresh.lake.pool.query(
    `INSERT INTO send_api_keys (id, name, account_id, key_hash, key_prefix) VALUES ($1, 'test', $2, $3, 'wal_test')`,
    [id, accountId, createHash('sha256').update(id).digest('hex')]
  );
  return id;
}

async function newOutbound(apiKeyId: string, accountId: string, toJid: string, state: string): Promise<string> {
  const id = randomUUID();
  await fresh.lake.pool.query(
    `INSERT INTO outbound_messages (id, api_key_id, account_id, idempotency_key, request_hash, to_jid, text, category,
                                    metadata, state, wa_message_id)
     VALUES ($1, $2, $3, $10, $4, $5, $6, 'transactional', $7, $8, $9)`,
    [
      id,
      apiKeyId,
      accountId,
      createHash('sha256').update(`request ${id}`).digest('hex'),
      toJid,
      `your code ${id}`,
      JSON.stringify({ orderId: id, phone: toJid }),
      state,
      `3EB0${randomUUID().replaceAll('-', '').slice(0, 16).toUpperCase()}`,
      `idem-${id}`,
    ]
  );
  return id;
}

const runFor = (participant: string, extra: { accountJids?: string[]; force?: boolean } = {}) =>
  runErasure({
    erasureKey: TEST_ERASURE_KEY,
    pool: fresh.lake.pool,
    outboxPath: join(dir, 'outbox.sqlite'),
    temporalClient: temporal.client,
    participant,
    requestedBy: 'dpo@example.org',
    ...extra,
  });

/** The `--query` of one printed `temporal workflow list` command. */
const queryOf = (command: string): string => /--query "(.*)"$/.exec(command)?.[1] ?? '';

describe('wa-lake forget on the send side', () => {
  it('deletes the opt-ins, redacts messages sent to the member, and prints queries that find their histories', async () => {
    const accountId = `acct-${randomUUID()}`;
    const group = newGroupJid();
    const [caio, bia] = [newMember(), newMember()] as [Member, Member];
    const eventId = randomUUID();
    expect(await fresh.lake.store(randomUUID(), metadataBody(group, [caio, bia], new Date().toISOString()))).toBe(
      'stored'
    );
    expect(await fresh.lake.store(eventId, messageBody(group, caio, 'hello', new Date()))).toBe('stored');
    const keyId = await newApiKey(accountId);
    await fresh.lake.pool.query(`INSERT INTO send_opt_ins (account_id, phone_jid, note) VALUES ($1, $2, 'web form')`, [
      accountId,
      caio.phoneJid,
    ]);
    await fresh.lake.pool.query(`INSERT INTO send_opt_ins (account_id, phone_jid) VALUES ($1, $2)`, [
      accountId,
      bia.phoneJid,
    ]);
    await fresh.lake.pool.query(`INSERT INTO send_test_recipients (account_id, jid) VALUES ($1, $2)`, [
      accountId,
      caio.phoneJid,
    ]);
    const delivered = await newOutbound(keyId, accountId, caio.phoneJid, 'delivered');
    const queued = await newOutbound(keyId, accountId, caio.phoneJid, 'queued');
    const toBia = await newOutbound(keyId, accountId, bia.phoneJid, 'read');
    // What Temporal keeps until retention: the histories the printed queries must find.
    for (const [type, workflowId] of [
      ['sendMessage', `send-${delivered}`],
      ['sendMessage', `send-${queued}`],
      ['deliverEvent', eventId],
    ] as const)
      await temporal.client.workflow.start(type, { taskQueue: `no-worker-${randomUUID()}`, workflowId, args: [] });

    const report = await runFor(`+${caio.phone}`);

    expect(report.counts.lake).toMatchObject({ optInsDeleted: 1, testRecipientsDeleted: 1, sentMessagesRedacted: 2 });
    const { rows } = await fresh.lake.pool.query<{ id: string; to_jid: string; text: string | null; meta: unknown }>(
      `SELECT id, to_jid, text, metadata AS meta FROM outbound_messages WHERE id = ANY($1::uuid[])`,
      [[delivered, queued, toBia]]
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const id of [delivered, queued]) {
      expect(byId.get(id)).toMatchObject({ text: null, meta: null });
      expect(byId.get(id)?.to_jid).toMatch(/^erased-[0-9a-f-]{36}@erased$/);
    }
    expect(byId.get(toBia)).toMatchObject({ to_jid: bia.phoneJid, text: `your code ${toBia}` });
    const sendText = (
      await fresh.lake.pool.query<{ t: string }>(
        `SELECT concat_ws(' ', (SELECT string_agg(o::text, ' ') FROM send_opt_ins o),
                               (SELECT string_agg(r::text, ' ') FROM send_test_recipients r),
                               (SELECT string_agg(m::text, ' ') FROM outbound_messages m)) AS t`
      )
    ).rows[0]?.t;
    for (const digits of [caio.phone, caio.lid.split('@')[0] ?? '']) {
      expect(sendText).not.toContain(digits);
      expect(await dumpLakeText(fresh.lake.pool)).not.toContain(digits);
    }
    expect(sendText).toContain(bia.phone);

    const notReached = report.notReached.join('\n');
    expect(notReached).toContain('sendMessage input the recipient, text and metadata');
    expect(notReached).toContain(
      `temporal workflow cancel --namespace default --query "WorkflowId IN ('send-${queued}')"`
    );
    expect(report.temporalHistories.sendMessageWorkflowIds.sort()).toEqual(
      [`send-${delivered}`, `send-${queued}`].sort()
    );
    expect(report.temporalHistories.deliverEventWorkflowIds).toContain(eventId);
    const found = new Set<string>();
    for (const command of report.temporalHistories.queries) {
      expect(notReached).toContain(command);
      for await (const execution of temporal.client.workflow.list({ query: queryOf(command) }))
        found.add(execution.workflowId);
    }
    expect([...found].sort()).toEqual([`send-${delivered}`, `send-${queued}`, eventId].sort());
  });

  it("refuses the linked account's own identifiers, from the lake or the auth folder, unless --force", async () => {
    const group = newGroupJid();
    const [account, owner, member] = [newMember(), newMember(), newMember()] as [Member, Member, Member];
    const event = JSON.parse(metadataBody(group, [account, owner, member], new Date().toISOString())) as object;
    const withAccount = JSON.stringify({ ...event, account_jid: `${account.phone}:7@s.whatsapp.net` });
    expect(await fresh.lake.store(randomUUID(), withAccount)).toBe('stored');
    const participants = async (): Promise<number> =>
      (await fresh.lake.pool.query('SELECT 1 FROM whatsapp_participants')).rowCount ?? 0;
    const before = await participants();

    // By the phone number the lake recorded as account_jid, and by the LID aliased to it.
    await expect(runFor(`+${account.phone}`)).rejects.toThrow(LinkedAccountIdentifierError);
    await expect(runFor(account.lid)).rejects.toThrow(/linked WhatsApp account's own identifier/);
    // By the auth folder's creds.json (`me`), which the lake may never have seen.
    await expect(runFor(owner.lid, { accountJids: [owner.phoneJid] })).rejects.toThrow(LinkedAccountIdentifierError);
    expect(await participants()).toBe(before);

    const forced = await runFor(owner.lid, { accountJids: [owner.phoneJid], force: true });
    expect(forced.refused).toBe(false);
    expect(forced.counts.lake.participantsDeleted).toBeGreaterThan(0);
    const other = await runFor(member.phoneJid, { accountJids: [owner.phoneJid] });
    expect(other.counts.lake.participantsDeleted).toBeGreaterThan(0);
  });

  it('refuses an identifier that matches nothing, recording no run, and records it with --force', async () => {
    const runs = async (): Promise<number> =>
      (await fresh.lake.pool.query('SELECT 1 FROM whatsapp_erasure_runs')).rowCount ?? 0;
    const before = await runs();
    const unseen = newMember();

    const refused = await runFor(unseen.lid);
    expect(refused).toMatchObject({ foundNothing: true, refused: true });
    expect(await runs()).toBe(before);

    const forced = await runFor(unseen.lid, { force: true });
    expect(forced).toMatchObject({ foundNothing: true, refused: false });
    expect(await runs()).toBe(before + 1);
  });
});
