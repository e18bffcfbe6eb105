import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKeyWithCli, runCliOnLake } from '../../helpers/run-cli-on-lake.js';
import {
  createTestApiKey,
  postMessageWithHeaders,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';

// Quotas per API key (ADR 0015): counted at accept, in the statement that accepts.
let server: SendTestServer;
let groupJid: string;

beforeAll(async () => {
  // The race below is 200 clients' requests at once, all from this one address: more than the per-address cap.
  server = await startSendTestServer(inject('databaseUrl'), { env: { INGEST_MAX_CONNECTIONS_PER_ADDRESS: '256' } });
  groupJid = await seedGroup(server.pool, []);
});
afterAll(async () => {
  await server.close();
});

async function acceptedCount(apiKeyId: string): Promise<number> {
  const { rows } = await server.pool.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM outbound_messages WHERE api_key_id = $1',
    [apiKeyId]
  );
  return rows[0]?.n ?? -1;
}

function secondsToNextUtcMidnight(): number {
  const now = new Date();
  return (Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) - now.getTime()) / 1000;
}

describe('send quotas per API key (ADR 0015)', () => {
  it('accepts exactly 100 of 200 parallel requests at a daily limit of 100 set by api-keys create --daily', async () => {
    const accountId = `acct-${randomUUID()}`;
    const { key, id } = await createKeyWithCli(inject('databaseUrl'), ['--account', accountId, '--daily', '100']);
    expect((await runCliOnLake(inject('databaseUrl'), ['accounts', 'approve', accountId])).code).toBe(0);
    const listed = await runCliOnLake(inject('databaseUrl'), ['api-keys', 'list']);
    expect(listed.stdout.split('\n')[0]).toBe('id  key prefix  account (approval)  name  environment  state  quota');
    expect(listed.stdout).toContain(`${id}`);
    expect(listed.stdout).toMatch(new RegExp(`${id}.*daily 100 monthly -`));
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        postMessageWithHeaders(server.url, key, { to: groupJid, text: `burst ${i}`, category: 'marketing' })
      )
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100);
    expect(await acceptedCount(id)).toBe(100);
    const refused = responses.find((r) => r.status === 429);
    expect(refused?.json['code']).toBe('WA_ERR_QUOTA_EXCEEDED');
    const retryAfter = Number(refused?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - secondsToNextUtcMidnight())).toBeLessThan(120);
    expect(refused?.headers.get('ratelimit-policy')).toBe('"daily";q=100;w=86400');
    expect(refused?.headers.get('ratelimit')).toBe(`"daily";r=0;t=${retryAfter}`);
    const lastAccepted = responses.filter((r) => r.status === 202).map((r) => r.headers.get('ratelimit'));
    expect(lastAccepted).toContain(`"daily";r=0;t=${retryAfter}`);
  });

  it('never counts an idempotent replay, and a new UTC day starts the count again', async () => {
    const apiKey = await createTestApiKey(server.admin, { dailyLimit: 2 });
    const body = { to: groupJid, text: 'replayed', category: 'otp' };
    const idempotencyKey = randomUUID();
    const first = await postMessageWithHeaders(server.url, apiKey.key, body, idempotencyKey);
    expect(first.status).toBe(202);
    expect(first.headers.get('ratelimit')).toMatch(/^"daily";r=1;t=\d+$/);
    for (let i = 0; i < 3; i += 1) {
      const replay = await postMessageWithHeaders(server.url, apiKey.key, body, idempotencyKey);
      expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([202, 'true']);
    }
    const second = await postMessageWithHeaders(server.url, apiKey.key, { ...body, text: 'second' });
    expect(second.status).toBe(202);
    const third = await postMessageWithHeaders(server.url, apiKey.key, { ...body, text: 'third' });
    expect(third.status).toBe(429);
    // A replay of an accepted request is still answered after the quota is used up.
    const late = await postMessageWithHeaders(server.url, apiKey.key, body, idempotencyKey);
    expect([late.status, late.json, late.headers.get('idempotent-replayed')]).toEqual([202, first.json, 'true']);
    const { rows } = await server.pool.query<{ day_used: number }>(
      'SELECT day_used FROM send_api_key_usage WHERE api_key_id = $1',
      [apiKey.id]
    );
    expect(rows[0]?.day_used).toBe(2);
    await server.pool.query(`UPDATE send_api_key_usage SET day = day - 1 WHERE api_key_id = $1`, [apiKey.id]);
    expect((await postMessageWithHeaders(server.url, apiKey.key, { ...body, text: 'next day' })).status).toBe(202);
  });

  it('refuses past a monthly limit with Retry-After until the first of next month', async () => {
    const apiKey = await createTestApiKey(server.admin, { dailyLimit: 10, monthlyLimit: 2 });
    const send = (text: string): ReturnType<typeof postMessageWithHeaders> =>
      postMessageWithHeaders(server.url, apiKey.key, { to: groupJid, text, category: 'transactional' });
    expect((await send('one')).status).toBe(202);
    expect((await send('two')).status).toBe(202);
    const refused = await send('three');
    expect(refused.status).toBe(429);
    expect(refused.json['error']).toContain('monthly');
    const now = new Date();
    const toNextMonth = (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000;
    expect(Math.abs(Number(refused.headers.get('retry-after')) - toNextMonth)).toBeLessThan(120);
    expect(refused.headers.get('ratelimit')).toMatch(/^"daily";r=8;t=\d+, "monthly";r=0;t=\d+$/);
    expect(await acceptedCount(apiKey.id)).toBe(2);
  });
});
