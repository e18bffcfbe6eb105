import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Alert } from '../../../common/alert-sink.js';
import { createRootLogger } from '../../../common/logger.js';
import { buildAlertWebhookBody, createWindowedAlertSink } from '../../../common/windowed-alert-sink.js';

function captureLogger() {
  const records: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, callback) {
      records.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: createRootLogger({ level: 'debug', destination }), records };
}

const unauthorized: Alert = {
  kind: 'ingest_unauthorized',
  severity: 'error',
  message: 'ingest refuses our secret',
  details: { status: 401 },
};

describe('createWindowedAlertSink', () => {
  it('sends one alert per kind per window and logs it at error', async () => {
    const { logger, records } = captureLogger();
    let clockMs = 1_000;
    const sink = createWindowedAlertSink({ windowMs: 60_000, logger, now: () => clockMs });
    const results: boolean[] = [];
    for (let i = 0; i < 100; i += 1) results.push(await sink.send(unauthorized));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await sink.send({ ...unauthorized, kind: 'ingest_misconfigured' })).toBe(true);
    clockMs += 60_000;
    expect(await sink.send(unauthorized)).toBe(true);
    const alerts = records.filter((record) => record['msg'] === 'alert');
    expect(alerts).toHaveLength(3);
    expect(alerts.every((record) => record['level'] === 50)).toBe(true);
    expect(alerts[2]?.['suppressedSinceLast']).toBe(99);
  });

  it('posts a body that Discord and Slack accept to the webhook', async () => {
    const { logger } = captureLogger();
    const requests: Array<{ url: string; body: string; contentType: string | null }> = [];
    const fetchImpl: typeof fetch = (input, init) => {
      const body = typeof init?.body === 'string' ? init.body : '';
      requests.push({
        url: input instanceof Request ? input.url : input.toString(),
        body,
        contentType: new Headers(init?.headers).get('content-type'),
      });
      return Promise.resolve(new Response(null, { status: 204 }));
    };
    const sink = createWindowedAlertSink({ windowMs: 1_000, logger, webhookUrl: 'https://hooks.example/x', fetchImpl });
    await sink.send(unauthorized);
    await sink.send(unauthorized);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.contentType).toBe('application/json');
    const body = JSON.parse(requests[0]?.body ?? '{}') as { content: string; text: string };
    expect(body.content).toContain('ingest_unauthorized');
    expect(body.text).toBe(body.content);
  });

  it('logs a failing webhook and never throws', async () => {
    const { logger, records } = captureLogger();
    const fetchImpl: typeof fetch = () => Promise.reject(new Error('connect ECONNREFUSED'));
    const sink = createWindowedAlertSink({ windowMs: 1_000, logger, webhookUrl: 'http://127.0.0.1:9/', fetchImpl });
    await expect(sink.send(unauthorized)).resolves.toBe(true);
    expect(records.some((record) => record['msg'] === 'alert webhook request failed')).toBe(true);
  });

  it('logs a webhook error status and still counts the alert as sent', async () => {
    const { logger, records } = captureLogger();
    const fetchImpl: typeof fetch = () => Promise.resolve(new Response('nope', { status: 500 }));
    const sink = createWindowedAlertSink({ windowMs: 1_000, logger, webhookUrl: 'http://hooks.example/', fetchImpl });
    await expect(sink.send(unauthorized)).resolves.toBe(true);
    expect(records.some((record) => record['msg'] === 'alert webhook answered with an error status')).toBe(true);
  });
});

describe('buildAlertWebhookBody', () => {
  it('caps the line below the Discord limit', () => {
    const body = buildAlertWebhookBody({ ...unauthorized, message: 'x'.repeat(5_000) });
    expect(body.content.length).toBeLessThanOrEqual(1_900);
  });
});
