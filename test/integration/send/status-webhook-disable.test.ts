import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPostSendStatusWebhook } from '../../../activities/post-send-status-webhook.js';
import type { Alert } from '../../../common/alert-sink.js';
import { envPayloadEncryptionKeys } from '../../../common/payload-encryption-keys.js';
import { sealWebhookSecret } from '../../../common/webhook-secret-box.js';
import type { SendStatusDeliveryInput, SendStatusDeliveryResult } from '../../../workflows/send-contracts.js';
import { TEST_PAYLOAD_ENCRYPTION_KEYS, TEST_SECRET } from '../../helpers/temporal-env.js';
import { createTestApiKey, startSendTestServer, type SendTestServer } from '../../helpers/send-test-server.js';
import { runCliOnLake } from '../../helpers/run-cli-on-lake.js';

// ADR 0014 decision 8: status webhooks retried a dead endpoint forever. An endpoint failing for
// SEND_WEBHOOK_DISABLE_AFTER_MS (here 60 s; the first failure is moved back) or answering 410 is disabled, with one alert, and
// `wa-lake api-keys enable-webhook` turns it on again.
let server: SendTestServer;
let receiver: Server;
let receiverUrl: string;
let answer = 503;
let received = 0;

beforeAll(async () => {
  server = await startSendTestServer(inject('databaseUrl'), { env: { SEND_WEBHOOK_DISABLE_AFTER_MS: '60000' } });
  receiver = createServer((_request, response) => {
    received++;
    response.writeHead(answer).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const address = receiver.address();
  receiverUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
});
afterAll(async () => {
  receiver.close();
  await server.close();
});

async function newMessageWithWebhook(): Promise<{ keyId: string; messageId: string }> {
  const key = await createTestApiKey(server.admin);
  const secret = `whsec_${Buffer.from(randomUUID()).toString('base64')}`;
  await server.pool.query(`UPDATE send_api_keys SET webhook_url = $2, webhook_secret = $3 WHERE id = $1`, [
    key.id,
    receiverUrl,
    sealWebhookSecret(secret, envPayloadEncryptionKeys.parse(TEST_PAYLOAD_ENCRYPTION_KEYS)),
  ]);
  const messageId = randomUUID();
  await server.pool.query(
    `INSERT INTO outbound_messages (id, api_key_id, account_id, idempotency_key, request_hash, to_jid, text, category,
                                    state, wa_message_id)
     VALUES ($1, $2, $3, $4, $5, '5511999990000@s.whatsapp.net', 'hi', 'transactional', 'sent', $6)`,
    [
      messageId,
      key.id,
      key.accountId,
      `idem-${messageId}`,
      createHash('sha256').update(messageId).digest('hex'),
      `3EB0${messageId.slice(0, 12)}`,
    ]
  );
  return { keyId: key.id, messageId };
}

describe('a status-webhook endpoint that keeps failing', () => {
  const alerts: Alert[] = [];
  const attempt = (messageId: string): Promise<SendStatusDeliveryResult | Error> =>
    new MockActivityEnvironment()
      .run<[SendStatusDeliveryInput], SendStatusDeliveryResult, ReturnType<typeof createPostSendStatusWebhook>>(
        createPostSendStatusWebhook({
          webhookUrl: `${server.url}/api/webhooks/whatsapp`,
          webhookSecret: TEST_SECRET,
          httpTimeoutMs: 5_000,
          statusWebhookPolicy: { allowHttp: true, allowPrivate: true },
          alertSink: {
            send: (alert) => {
              alerts.push(alert);
              return Promise.resolve(true);
            },
          },
        }),
        { messageId, state: 'sent' as const, at: new Date().toISOString(), reasonCode: null, sequence: 2 }
      )
      .catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));

  it('is disabled once it failed past the period, with one alert, sends nothing more, and is enabled again', async () => {
    const { keyId, messageId } = await newMessageWithWebhook();
    const disabledAt = async (): Promise<Date | null> =>
      (
        await server.pool.query<{ at: Date | null }>(
          'SELECT webhook_disabled_at AS at FROM send_api_keys WHERE id = $1',
          [keyId]
        )
      ).rows[0]?.at ?? null;
    answer = 503;
    expect(await attempt(messageId)).toBeInstanceOf(Error);
    expect(await disabledAt()).toBeNull();
    // Past the period: the first failure is moved back instead of waiting.
    await server.pool.query(
      `UPDATE send_api_keys SET webhook_failing_since = now() - interval '2 minutes' WHERE id = $1`,
      [keyId]
    );
    expect(await attempt(messageId)).toBeInstanceOf(Error);
    expect(await disabledAt()).not.toBeNull();
    expect(await attempt(messageId)).toEqual({ status: null, outcome: 'no_webhook' });
    expect(alerts.filter((alert) => alert.kind === 'status_webhook_disabled')).toHaveLength(1);
    expect(received).toBe(2);

    const enabled = await runCliOnLake(inject('databaseUrl'), ['api-keys', 'enable-webhook', keyId]);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(enabled.stdout).toContain('enabled the status webhook');
    expect(enabled.stdout).toContain('failed for 1 min without a success');
    answer = 204;
    expect(await attempt(messageId)).toEqual({ status: 204, outcome: 'delivered' });
    expect(await disabledAt()).toBeNull();
  });

  it('is disabled at once by a 410 Gone', async () => {
    const { keyId, messageId } = await newMessageWithWebhook();
    answer = 410;
    const before = alerts.length;
    expect(await attempt(messageId)).toBeInstanceOf(Error);
    const { rows } = await server.pool.query<{ reason: string }>(
      'SELECT webhook_disabled_reason AS reason FROM send_api_keys WHERE id = $1',
      [keyId]
    );
    expect(rows[0]?.reason).toBe('the endpoint answered 410 Gone');
    expect(alerts.length).toBe(before + 1);
  });
});
