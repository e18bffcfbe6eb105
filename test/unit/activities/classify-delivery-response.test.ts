import { describe, expect, it } from 'vitest';
import {
  classifyDeliveryResponse,
  MAX_RETRY_AFTER_MS,
  parseRetryAfterMs,
  type DeliveryClass,
} from '../../../activities/classify-delivery-response.js';

const NOW_MS = Date.UTC(2026, 0, 1);

/** The architecture.md §7 table, written independently of the implementation. */
function expectedKind(status: number): DeliveryClass['kind'] {
  if (status >= 200 && status <= 299) return 'delivered';
  if (status >= 300 && status <= 399) return 'misconfigured';
  if ([404, 405, 410].includes(status)) return 'misconfigured';
  if ([401, 403].includes(status)) return 'unauthorized';
  if ([408, 425, 429].includes(status)) return 'transient';
  if (status >= 400 && status <= 499) return 'rejected';
  return 'transient';
}

describe('classifyDeliveryResponse', () => {
  it('classifies every status from 100 to 599 per the architecture.md §7 table', () => {
    for (let status = 100; status <= 599; status += 1) {
      const verdict = classifyDeliveryResponse({ kind: 'response', status }, NOW_MS);
      expect(verdict.kind, `status ${status}`).toBe(expectedKind(status));
      expect(verdict.status, `status ${status}`).toBe(status);
    }
  });

  it.each([400, 413, 415, 422, 409, 418, 451])('rejects %i (this event only)', (status) => {
    expect(classifyDeliveryResponse({ kind: 'response', status }, NOW_MS).kind).toBe('rejected');
  });

  it.each([301, 302, 303, 307, 308])('treats redirect %i as misconfigured and never as delivered', (status) => {
    expect(classifyDeliveryResponse({ kind: 'response', status }, NOW_MS)).toEqual({
      kind: 'misconfigured',
      status,
      isRedirect: true,
    });
  });

  it('marks 1xx and out-of-range statuses as unexpected transient outcomes', () => {
    expect(classifyDeliveryResponse({ kind: 'response', status: 101 }, NOW_MS)).toMatchObject({
      kind: 'transient',
      reason: 'unexpected_status',
    });
    expect(classifyDeliveryResponse({ kind: 'response', status: 600 }, NOW_MS)).toMatchObject({
      kind: 'transient',
      reason: 'unexpected_status',
    });
  });

  it('treats timeouts and network errors as transient without a status', () => {
    expect(classifyDeliveryResponse({ kind: 'timeout' }, NOW_MS)).toEqual({
      kind: 'transient',
      status: null,
      reason: 'timeout',
      retryAfterMs: null,
    });
    expect(classifyDeliveryResponse({ kind: 'network_error', code: 'ECONNREFUSED' }, NOW_MS)).toEqual({
      kind: 'transient',
      status: null,
      reason: 'network_error',
      retryAfterMs: null,
    });
  });

  it('carries Retry-After of a 429 and a 503 as the next delay', () => {
    expect(classifyDeliveryResponse({ kind: 'response', status: 429, retryAfter: '120' }, NOW_MS)).toEqual({
      kind: 'transient',
      status: 429,
      reason: 'throttled',
      retryAfterMs: 120_000,
    });
    const date = new Date(NOW_MS + 30_000).toUTCString();
    expect(classifyDeliveryResponse({ kind: 'response', status: 503, retryAfter: date }, NOW_MS)).toMatchObject({
      retryAfterMs: 30_000,
    });
  });
});

describe('parseRetryAfterMs', () => {
  it('parses seconds and HTTP dates, clamps past dates to 0 and caps huge values', () => {
    expect(parseRetryAfterMs('0', NOW_MS)).toBe(0);
    expect(parseRetryAfterMs(' 5 ', NOW_MS)).toBe(5_000);
    expect(parseRetryAfterMs(new Date(NOW_MS - 60_000).toUTCString(), NOW_MS)).toBe(0);
    expect(parseRetryAfterMs('99999999', NOW_MS)).toBe(MAX_RETRY_AFTER_MS);
  });

  it('returns null when absent or unparsable', () => {
    expect(parseRetryAfterMs(null, NOW_MS)).toBeNull();
    expect(parseRetryAfterMs(undefined, NOW_MS)).toBeNull();
    expect(parseRetryAfterMs('', NOW_MS)).toBeNull();
    expect(parseRetryAfterMs('soon', NOW_MS)).toBeNull();
    expect(parseRetryAfterMs('-5', NOW_MS)).toBeNull();
  });
});
