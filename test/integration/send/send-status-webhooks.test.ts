import { randomUUID } from 'node:crypto';
import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { postSignedInternal } from '../../../activities/post-signed-internal.js';
import { SEND_STATUS_WEBHOOKS_PATH } from '../../../common/send-status-webhook.js';
import { generateWebhookSecret } from '../../../common/standard-webhook-signature.js';
import {
  DEAD_LETTER_WORKFLOW_ID,
  WA_DELIVERY_STATE,
  WA_LAST_HTTP_STATUS,
  listDeadLettersQuery,
} from '../../../workflows/contracts.js';
import {
  WA_SEND_STATE,
  sendStatusWebhookId,
  sendWorkflowId,
  type SendState,
} from '../../../workflows/send-contracts.js';
import { TEST_SECRET, testDataConverter } from '../../helpers/temporal-env.js';
import { postMessage, seedGroup } from '../../helpers/send-test-server.js';
import { startStatusWebhookTestbed, type StatusWebhookTestbed } from '../../helpers/status-webhook-testbed.js';
import { useTemporalTestbed } from '../../helpers/temporal-testbed.js';

const harness = useTemporalTestbed();
let testbed: StatusWebhookTestbed;

beforeAll(async () => {
  testbed = await startStatusWebhookTestbed(harness.env, harness.bundle, inject('databaseUrl'));
});
afterAll(async () => {
  await testbed?.close();
});

const STATES: SendState[] = ['queued', 'dispatched', 'sent', 'delivered', 'read'];

/** Replays the recorded histories of these workflow ids with today's code (throws on non-determinism). */
async function replay(workflowIds: string[]): Promise<void> {
  for (const workflowId of workflowIds) {
    const history = await harness.env.client.workflow.getHandle(workflowId).fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: harness.bundle, dataConverter: testDataConverter() },
      history,
      workflowId
    );
  }
}

describe('status webhooks to the caller (ADR 0011)', () => {
  it('delivers each state once to a receiver that answers 500 then 200, with one webhook-id across retries and a signature the standardwebhooks library accepts', async () => {
    const kit = await testbed.newKit();
    const { key, secret } = await testbed.createKey(kit.accountId, '/flaky');
    testbed.receiver.answer = (_path, _id, attempt) => (attempt === 1 ? 500 : 200);
    await kit.run(async () => {
      const id = await testbed.sendAndRead(key, { order: 'A-17' });
      for (const state of STATES) {
        await expect(harness.env.client.workflow.getHandle(sendStatusWebhookId(id, state)).result()).resolves.toEqual({
          status: 200,
          outcome: 'delivered',
        });
      }
      const received = testbed.receiver.on('/flaky');
      const webhook = new Webhook(secret ?? '');
      const accepted = received.filter((r) => r.answeredStatus === 200);
      expect(accepted.map((r) => r.headers['webhook-id']).sort()).toEqual(
        STATES.map((state) => sendStatusWebhookId(id, state)).sort()
      );
      for (const state of STATES) {
        const attempts = received.filter((r) => r.headers['webhook-id'] === sendStatusWebhookId(id, state));
        expect(attempts.map((r) => r.answeredStatus)).toEqual([500, 200]);
        expect(attempts[0]?.body).toBe(attempts[1]?.body);
      }
      const payloads = accepted.map(
        (r) =>
          webhook.verify(r.body, r.headers as Record<string, string>) as {
            type: string;
            data: { id: string; status: string; sequence: number; at: string; metadata: unknown };
          }
      );
      const byStatus = new Map(payloads.map((payload) => [payload.data.status, payload]));
      STATES.forEach((state, index) => {
        expect(byStatus.get(state)).toMatchObject({
          type: `message.${state}`,
          data: { id, status: state, sequence: index + 1, metadata: { order: 'A-17' } },
        });
      });
      const times = STATES.map((state) => Date.parse(byStatus.get(state)?.data.at ?? ''));
      expect([...times].sort((a, b) => a - b)).toEqual(times);

      await replay([sendWorkflowId(id), sendStatusWebhookId(id, 'sent')]);

      const sample = accepted[0];
      if (!sample) throw new Error('no accepted request');
      const tampered = sample.body.replace(/"status":"[a-z]+"/, '"status":"failed"');
      expect(tampered).not.toBe(sample.body);
      expect(() => webhook.verify(tampered, sample.headers as Record<string, string>)).toThrow(
        WebhookVerificationError
      );
      expect(() =>
        new Webhook(generateWebhookSecret()).verify(sample.body, sample.headers as Record<string, string>)
      ).toThrow(WebhookVerificationError);
    });
  });

  it('dead-letters a status change the receiver rejects with 400 or 422 and sends it no more', async () => {
    const kit = await testbed.newKit();
    const { key } = await testbed.createKey(kit.accountId, '/rejecting');
    testbed.receiver.answer = (path, _id, _attempt, body) =>
      path === '/rejecting' && body.includes('"queued"') ? 400 : 422;
    await kit.run(async () => {
      const id = await testbed.sendAndRead(key, null);
      for (const state of STATES) {
        const failure = await harness.env.client.workflow
          .getHandle(sendStatusWebhookId(id, state))
          .result()
          .then(
            () => null,
            (err: unknown) => err
          );
        expect(failure).toBeInstanceOf(WorkflowFailedError);
        const cause = (failure as WorkflowFailedError).cause;
        expect(cause).toBeInstanceOf(ApplicationFailure);
        expect((cause as ApplicationFailure).type).toBe('StatusWebhookRejectedError');
        // Findable by search attributes, like a dead-lettered lake delivery (ADR 0017).
        const found = (await harness.env.client.workflow.getHandle(sendStatusWebhookId(id, state)).describe())
          .typedSearchAttributes;
        expect([found.get(WA_SEND_STATE), found.get(WA_DELIVERY_STATE), found.get(WA_LAST_HTTP_STATUS)]).toEqual([
          state,
          'dead_lettered',
          state === 'queued' ? 400 : 422,
        ]);
      }
      const page = await harness.env.client.workflow
        .getHandle(DEAD_LETTER_WORKFLOW_ID)
        .query(listDeadLettersQuery, { limit: 1000 });
      const entries = new Map(page.entries.map((entry) => [entry.eventId, entry]));
      expect(entries.get(sendStatusWebhookId(id, 'queued'))).toMatchObject({
        type: 'send_status:queued',
        httpStatus: 400,
        resolvedAt: null,
      });
      for (const state of STATES.slice(1)) {
        expect(entries.get(sendStatusWebhookId(id, state))).toMatchObject({ httpStatus: 422 });
      }
      expect(testbed.deadLetterAlerts.map((alert) => alert.message)).toContain(
        'A send API caller’s webhook rejected status webhooks for good; they are dead-lettered. See `wa-lake dlq list`.'
      );
      // One attempt per status change: a rejected change is never retried.
      const attempts = testbed.receiver.received.filter((r) => String(r.headers['webhook-id']).includes(id));
      expect(attempts).toHaveLength(STATES.length);
    });
  });

  it('raises status_webhook_unauthorized on a receiver that answers 401, keeps retrying, and delivers once it accepts', async () => {
    const kit = await testbed.newKit();
    const { key } = await testbed.createKey(kit.accountId, '/unauthorized');
    testbed.receiver.answer = (path, _id, attempt) => (path === '/unauthorized' && attempt <= 2 ? 401 : 200);
    await kit.run(async () => {
      const id = await testbed.sendAndRead(key, null);
      for (const state of STATES) {
        await expect(
          harness.env.client.workflow.getHandle(sendStatusWebhookId(id, state)).result()
        ).resolves.toMatchObject({
          status: 200,
        });
        const attempts = testbed.receiver
          .on('/unauthorized')
          .filter((r) => r.headers['webhook-id'] === sendStatusWebhookId(id, state));
        expect(attempts.map((r) => r.answeredStatus)).toEqual([401, 401, 200]);
        const found = (await harness.env.client.workflow.getHandle(sendStatusWebhookId(id, state)).describe())
          .typedSearchAttributes;
        expect([found.get(WA_SEND_STATE), found.get(WA_DELIVERY_STATE), found.get(WA_LAST_HTTP_STATUS)]).toEqual([
          state,
          'delivered',
          200,
        ]);
      }
      // One alert per blocked run (the alert sink dedups across runs by kind and window).
      expect(kit.alerts.filter((alert) => alert.kind === 'status_webhook_unauthorized')).toHaveLength(STATES.length);
      await replay([sendStatusWebhookId(id, 'queued')]);
    });
  });

  it('sends nothing for a key without a webhook URL: no child workflow, no request', async () => {
    const kit = await testbed.newKit();
    const { key } = await testbed.createKey(kit.accountId, null);
    const before = testbed.receiver.received.length;
    await kit.run(async () => {
      const id = await testbed.sendAndRead(key, { order: 'B-2' });
      for (const state of STATES) {
        await expect(
          harness.env.client.workflow.getHandle(sendStatusWebhookId(id, state)).describe()
        ).rejects.toBeInstanceOf(WorkflowNotFoundError);
      }
      const history = await harness.env.client.workflow.getHandle(sendWorkflowId(id)).fetchHistory();
      const childStarts = (history.events ?? []).filter(
        (event) => event.startChildWorkflowExecutionInitiatedEventAttributes
      );
      expect(childStarts).toHaveLength(0);
    });
    expect(testbed.receiver.received.length).toBe(before);
  });

  it('prepares requests only for a correctly signed ask: 401 for a wrong internal signature, url null for a key without webhook', async () => {
    // No workers: the workflows the API starts wait unpolled; only the prepare endpoint is exercised.
    const accountId = `acct-${randomUUID().slice(0, 8)}`;
    const withHook = await testbed.createKey(accountId, '/prepared');
    const withoutHook = await testbed.createKey(accountId, null);
    const groupJid = await seedGroup(testbed.server.pool, []);
    const idOf = async (apiKey: string): Promise<string> => {
      const response = await postMessage(testbed.server.url, apiKey, { to: groupJid, text: 'x', category: 'otp' });
      return response.json['id'] as string;
    };
    const ask = async (messageId: string, secret = TEST_SECRET) => {
      const body = JSON.stringify({
        message_id: messageId,
        state: 'sent',
        at: new Date().toISOString(),
        reason_code: null,
        sequence: 3,
      });
      const target = {
        url: `${testbed.server.url}${SEND_STATUS_WEBHOOKS_PATH}`,
        webhookSecret: secret,
        httpTimeoutMs: 5_000,
        fetchImpl: fetch,
      };
      const response = await postSignedInternal(target, messageId, body);
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
    const hooked = await idOf(withHook.key);
    expect((await ask(hooked, 'another-secret-0123456789abcdef')).status).toBe(401);
    expect(await ask(await idOf(withoutHook.key))).toEqual({ status: 200, json: { url: null } });
    const prepared = await ask(hooked);
    expect(prepared.status).toBe(200);
    expect(prepared.json['url']).toBe(`${testbed.receiverUrl}/prepared`);
    const headers = prepared.json['headers'] as Record<string, string>;
    expect(headers['webhook-id']).toBe(sendStatusWebhookId(hooked, 'sent'));
    expect(new Webhook(withHook.secret ?? '').verify(prepared.json['body'] as string, headers)).toMatchObject({
      type: 'message.sent',
      data: { id: hooked, sequence: 3 },
    });
    const stored = await testbed.server.pool.query<{ webhook_secret: string }>(
      `SELECT k.webhook_secret FROM send_api_keys k JOIN outbound_messages m ON m.api_key_id = k.id WHERE m.id = $1`,
      [hooked]
    );
    expect(stored.rows[0]?.webhook_secret).toMatch(/^aes256gcm:test1:/);
    expect(stored.rows[0]?.webhook_secret).not.toContain((withHook.secret ?? '').slice(6));
  });
});
