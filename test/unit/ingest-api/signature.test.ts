import { describe, expect, it } from 'vitest';
import { computeSignature } from '../../../common/hmac-signature.js';
import { computeInternalSignature } from '../../../common/internal-signature.js';
import { checkInternalSignature, isSignatureValid } from '../../../ingest-api/signature.js';

const EVENT_ID = '7c301bfa-8af7-53a4-9bc3-8e9bcf75641d';
const BODY = Buffer.from('{"t":"caf\\u00e9 ☕"}', 'utf8');

describe('isSignatureValid', () => {
  it('accepts a signature made with any configured secret', () => {
    const secrets = ['first-secret-0123456789', 'second-secret-0123456789'];
    for (const secret of secrets)
      expect(isSignatureValid(secrets, EVENT_ID, BODY, computeSignature(secret, EVENT_ID, BODY))).toBe(true);
  });

  it('rejects another secret, another event id, other bytes and malformed signatures', () => {
    const secrets = ['first-secret-0123456789'];
    const good = computeSignature(secrets[0] ?? '', EVENT_ID, BODY);
    expect(isSignatureValid(secrets, EVENT_ID, BODY, computeSignature('other-secret-0123456789', EVENT_ID, BODY))).toBe(
      false
    );
    expect(isSignatureValid(secrets, EVENT_ID.replace('7', '8'), BODY, good)).toBe(false);
    expect(isSignatureValid(secrets, EVENT_ID, Buffer.from('{"t":"café ☕"}'), good)).toBe(false);
    for (const bad of ['', good.slice(2), `sha256=${good}`, 'z'.repeat(64)])
      expect(isSignatureValid(secrets, EVENT_ID, BODY, bad)).toBe(false);
  });
});

describe('checkInternalSignature (ADR 0022)', () => {
  const secrets = ['first-secret-0123456789'];
  const nowMs = 1_800_000_000_000;
  const parts = {
    method: 'POST',
    path: '/api/internal/send-transitions',
    id: EVENT_ID,
    timestamp: String(nowMs / 1000),
    rawBody: BODY,
  };
  const clock = { nowMs, toleranceMs: 300_000 };
  const signed = computeInternalSignature(secrets[0] ?? '', parts);

  it('accepts the signed method, path, id, time and body, within the tolerance either way', () => {
    expect(checkInternalSignature(secrets, parts, signed, clock)).toBe('valid');
    expect(checkInternalSignature(secrets, parts, signed, { ...clock, nowMs: nowMs + 299_000 })).toBe('valid');
    expect(checkInternalSignature(secrets, parts, signed, { ...clock, nowMs: nowMs - 299_000 })).toBe('valid');
  });

  it('calls an authentic request outside the tolerance stale', () => {
    expect(checkInternalSignature(secrets, parts, signed, { ...clock, nowMs: nowMs + 301_000 })).toBe('stale');
  });

  it('refuses another path, method, timestamp or id, and the lake delivery signature of the same body', () => {
    for (const changed of [
      { ...parts, path: '/api/internal/send-status-webhooks' },
      { ...parts, method: 'PUT' },
      { ...parts, timestamp: String(nowMs / 1000 + 1) },
      { ...parts, id: EVENT_ID.replace('7', '8') },
      { ...parts, timestamp: 'soon' },
    ]) {
      expect(checkInternalSignature(secrets, changed, signed, clock)).toBe('bad_signature');
    }
    expect(checkInternalSignature(secrets, parts, computeSignature(secrets[0] ?? '', EVENT_ID, BODY), clock)).toBe(
      'bad_signature'
    );
  });
});
