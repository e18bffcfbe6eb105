import { createHmac, timingSafeEqual } from 'node:crypto';
import { buildSigningInput } from '../common/hmac-signature.js';

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * Verifies `X-Signature` over the exact received bytes, before anything parses them (architecture.md §7, §8).
 * Every configured secret is tried (rotation without downtime) and every comparison runs, with a
 * length check and `timingSafeEqual`, so timing does not reveal which secret or byte differs.
 *
 * @param secrets - the configured secrets (at least one).
 * @param eventId - the `X-Event-Id` header exactly as received.
 * @param rawBody - the raw request body bytes.
 * @param signature - the `X-Signature` header: 64 hex characters, no prefix.
 * @returns true when any secret produces the signature.
 */
export function isSignatureValid(
  secrets: readonly string[],
  eventId: string,
  rawBody: Buffer,
  signature: string
): boolean {
  if (!HEX_SHA256.test(signature)) return false;
  const received = Buffer.from(signature, 'hex');
  const input = buildSigningInput(eventId, rawBody);
  let isValid = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(input).digest();
    if (expected.length === received.length && timingSafeEqual(expected, received)) isValid = true;
  }
  return isValid;
}
