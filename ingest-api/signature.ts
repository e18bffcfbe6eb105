import { createHmac, timingSafeEqual } from 'node:crypto';
import { buildSigningInput } from '../common/hmac-signature.js';
import { buildInternalSigningInput, type InternalSigningParts } from '../common/internal-signature.js';

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
  return isHmacOfAnySecret(secrets, buildSigningInput(eventId, rawBody), signature);
}

/** What {@link checkInternalSignature} found. */
export type InternalSignatureCheck = 'valid' | 'bad_signature' | 'stale';

/**
 * Checks the signature of a call to an internal endpoint (ADR 0022, Standard Webhooks' signed timestamp):
 * `signature` must be the HMAC of {@link buildInternalSigningInput} under any configured secret, for the method
 * and path this endpoint is registered at, and the signed timestamp must lie within `toleranceMs` of `nowMs`
 * either way. A request replayed later, or to another endpoint, or with its timestamp changed, fails.
 *
 * @returns `bad_signature` (checked first: a stale verdict is given only to authentic requests), `stale`, or `valid`.
 */
export function checkInternalSignature(
  secrets: readonly string[],
  parts: InternalSigningParts & { rawBody: Buffer },
  signature: string,
  clock: { nowMs: number; toleranceMs: number }
): InternalSignatureCheck {
  if (!/^\d{1,12}$/.test(parts.timestamp)) return 'bad_signature';
  if (!isHmacOfAnySecret(secrets, buildInternalSigningInput(parts), signature)) return 'bad_signature';
  const skewMs = Math.abs(clock.nowMs - Number(parts.timestamp) * 1000);
  return skewMs <= clock.toleranceMs ? 'valid' : 'stale';
}

function isHmacOfAnySecret(secrets: readonly string[], input: Buffer, signature: string): boolean {
  if (!HEX_SHA256.test(signature)) return false;
  const received = Buffer.from(signature, 'hex');
  let isValid = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(input).digest();
    if (expected.length === received.length && timingSafeEqual(expected, received)) isValid = true;
  }
  return isValid;
}
