import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createTestApiKey,
  postMessageWithHeaders,
  seedGroup,
  startSendTestServer,
  type SendTestServer,
} from '../../helpers/send-test-server.js';

// Two ingest API instances on one lake, each with its own pool and route state, as two processes would be:
// a request whose Idempotency-Key the other instance is still accepting gets 409 (ADR 0030).
let first: SendTestServer;
let second: SendTestServer;
let groupJid: string;

beforeAll(async () => {
  const databaseUrl = inject('databaseUrl');
  [first, second] = await Promise.all([startSendTestServer(databaseUrl), startSendTestServer(databaseUrl)]);
  groupJid = await seedGroup(first.pool, []);
});
afterAll(async () => {
  await Promise.all([first.close(), second.close()]);
});

type Answer = Awaited<ReturnType<typeof postMessageWithHeaders>>;
const body = (text: string): Record<string, string> => ({ to: groupJid, text, category: 'otp' });
const isFirstAnswer = (a: Answer): boolean => a.status === 202 && a.headers.get('idempotent-replayed') === null;

async function rowsOf(apiKeyId: string, key: string): Promise<{ messages: number; claims: number }> {
  const { rows } = await first.pool.query<{ messages: number; claims: number }>(
    `SELECT (SELECT count(*)::int FROM outbound_messages WHERE api_key_id = $1 AND idempotency_key = $2) AS messages,
            (SELECT count(*)::int FROM send_idempotency_claims WHERE api_key_id = $1 AND idempotency_key = $2) AS claims`,
    [apiKeyId, key]
  );
  return rows[0] ?? { messages: -1, claims: -1 };
}

describe('Idempotency-Key across two API processes on one PostgreSQL (ADR 0030)', () => {
  it('answers 409 on one instance while the other is still accepting the key, then the first 202 again', async () => {
    const limited = await createTestApiKey(first.admin, { dailyLimit: 5 });
    const key = randomUUID();
    // Holding the key's quota row keeps the first instance's accept statement waiting: its key is in flight.
    const blocker = await first.pool.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM send_api_key_usage WHERE api_key_id = $1 FOR UPDATE', [limited.id]);
      const accepting = postMessageWithHeaders(first.url, limited.key, body('held'), key);
      await expect.poll(async () => (await rowsOf(limited.id, key)).claims, { timeout: 30_000 }).toBe(1);
      const repeat = await postMessageWithHeaders(second.url, limited.key, body('held'), key);
      expect([repeat.status, repeat.json['code'], repeat.json['type']]).toEqual([
        409,
        'WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT',
        '/api/v1/problems/WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT',
      ]);
      await blocker.query('COMMIT');
      const accepted = await accepting;
      expect(isFirstAnswer(accepted)).toBe(true);
      const replay = await postMessageWithHeaders(second.url, limited.key, body('held'), key);
      expect([replay.status, replay.json, replay.headers.get('idempotent-replayed')]).toEqual([
        202,
        accepted.json,
        'true',
      ]);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    expect(await rowsOf(limited.id, key)).toEqual({ messages: 1, claims: 0 });
  });

  it('gives exactly one first 202 when both instances get the same key at once; the other 409 or the replay', async () => {
    const apiKey = await createTestApiKey(first.admin);
    const tally = { inFlight: 0, replayed: 0 };
    for (let round = 0; round < 25; round += 1) {
      const key = randomUUID();
      const answers = await Promise.all(
        [first, second].map((server) => postMessageWithHeaders(server.url, apiKey.key, body(`race ${round}`), key))
      );
      const winners = answers.filter(isFirstAnswer);
      expect(winners, `round ${round}: ${answers.map((a) => a.status).join(', ')}`).toHaveLength(1);
      const other = answers.find((a) => !isFirstAnswer(a));
      if (other?.status === 409) {
        expect(other.json['code']).toBe('WA_ERR_IDEMPOTENCY_KEY_IN_FLIGHT');
        tally.inFlight += 1;
      } else {
        expect([other?.status, other?.json, other?.headers.get('idempotent-replayed')]).toEqual([
          202,
          winners[0]?.json,
          'true',
        ]);
        tally.replayed += 1;
      }
      expect(await rowsOf(apiKey.id, key)).toEqual({ messages: 1, claims: 0 });
    }
    expect(tally.inFlight + tally.replayed).toBe(25);
  });
});
