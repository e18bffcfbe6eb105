import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostEventToIngest } from '../../../activities/post-event.js';
import { computeSignature } from '../../../common/hmac-signature.js';
import { startFakeIngest, type FakeIngest, type FakeIngestAction } from '../../helpers/fake-ingest.js';
import { TEST_SECRET } from '../../helpers/temporal-env.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { newDeliverInput } from '../../helpers/temporal-worker.js';

// The postEventToIngest activity against a real HTTP server, inside MockActivityEnvironment.
let ingest: FakeIngest | undefined;
afterEach(async () => {
  await ingest?.close();
  ingest = undefined;
});

async function attempt(action: FakeIngestAction | undefined, httpTimeoutMs = 2_000): Promise<unknown> {
  ingest = await startFakeIngest({ secrets: [TEST_SECRET] });
  ingest.script(() => action);
  const post = createPostEventToIngest({ webhookUrl: ingest.webhookUrl, webhookSecret: TEST_SECRET, httpTimeoutMs });
  const input = newDeliverInput();
  return new MockActivityEnvironment()
    .run(post, { eventId: input.eventId, body: input.body })
    .catch((err: unknown) => err);
}

describe('postEventToIngest', () => {
  it('POSTs the exact body with Content-Type, X-Event-Id and a lower-case hex X-Signature', async () => {
    const result = await attempt(undefined);
    expect(result).toMatchObject({ status: 201, outcome: 'stored' });
    const request = ingest!.requests[0]!;
    expect(request.contentType).toBe('application/json');
    expect(request.signature).toBe(computeSignature(TEST_SECRET, request.eventId, request.body));
    expect(request.signature).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    [{ status: 422, body: { code: 'WA_ERR_VALIDATION' } }, 'IngestRejectedError', true],
    [{ status: 401 }, 'IngestUnauthorizedError', true],
    [{ status: 404 }, 'IngestMisconfiguredError', true],
    [{ status: 500 }, 'IngestTransientError', false],
    ['destroy', 'IngestTransientError', false],
  ] as const)('maps %j to %s (nonRetryable %s)', async (action, type, isNonRetryable) => {
    const failure = await attempt(action);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe(type);
    expect((failure as ApplicationFailure).nonRetryable).toBe(isNonRetryable);
  });

  it('keeps the response excerpt of a rejection in the failure details', async () => {
    const failure = (await attempt({ status: 422, body: { code: 'WA_ERR_VALIDATION' } })) as ApplicationFailure;
    expect(failure.details?.[0]).toMatchObject({
      status: 422,
      responseExcerpt: expect.stringContaining('WA_ERR_VALIDATION') as string,
    });
  });

  it('does not follow a redirect', async () => {
    const failure = await attempt({ status: 307, headers: { location: '/elsewhere' } });
    expect((failure as ApplicationFailure).type).toBe('IngestMisconfiguredError');
    expect(ingest!.requests.map((request) => request.path)).toEqual(['/api/webhooks/whatsapp']);
  });

  it('turns Retry-After into the next retry delay', async () => {
    const failure = (await attempt({ status: 429, headers: { 'retry-after': '30' } })) as ApplicationFailure;
    expect(failure.type).toBe('IngestTransientError');
    expect(failure.nextRetryDelay).toBe(30_000);
  });

  it('gives up on a server that never answers after the client timeout', async () => {
    const failure = (await attempt('hang', 300)) as ApplicationFailure;
    expect(failure.type).toBe('IngestTransientError');
    expect(failure.message).toContain('timeout');
  });

  it('aborts the request when the activity is cancelled', async () => {
    ingest = await startFakeIngest({ secrets: [TEST_SECRET] });
    ingest.script(() => 'hang');
    const post = createPostEventToIngest({
      webhookUrl: ingest.webhookUrl,
      webhookSecret: TEST_SECRET,
      httpTimeoutMs: 30_000,
    });
    const env = new MockActivityEnvironment();
    const input = newDeliverInput();
    const running = env.run(post, { eventId: input.eventId, body: input.body }).catch((err: unknown) => err);
    const fake = ingest;
    await waitUntil(() => fake.requests.length === 1, { what: 'the request reached the server' });
    env.cancel();
    const outcome = await running;
    expect(outcome).toBeInstanceOf(Error);
    expect(outcome).not.toBeInstanceOf(ApplicationFailure);
  });
});
