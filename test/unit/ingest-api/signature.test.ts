import { describe, expect, it } from 'vitest';
import { computeSignature } from '../../../common/hmac-signature.js';
import { isSignatureValid } from '../../../ingest-api/signature.js';

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
