import { createHmac } from 'node:crypto';

/**
 * Builds the exact bytes that are signed for one delivery: `${eventId}.${rawBody}`.
 * Shared by the `postEvent` activity (signer) and the ingest API (verifier) so the canonical string
 * exists once. Source: architecture.md §7 (headers) and §8 (verification).
 *
 * @param eventId - the event's UUID, exactly as sent in `X-Event-Id`.
 * @param rawBody - the request body: the string the collector stored, or the raw bytes received.
 * @returns the signing input as a Buffer (UTF-8 for the id and the separator, body bytes unchanged).
 */
export function buildSigningInput(eventId: string, rawBody: string | Buffer): Buffer {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  return Buffer.concat([Buffer.from(`${eventId}.`, 'utf8'), body]);
}

/**
 * Computes `X-Signature`: lower-case hex HMAC-SHA256 of {@link buildSigningInput}, no prefix.
 * Source: architecture.md §7.
 *
 * @param secret - the shared webhook secret (`WHATSAPP_WEBHOOK_SECRET`).
 * @returns 64 lower-case hex characters.
 */
export function computeSignature(secret: string, eventId: string, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(buildSigningInput(eventId, rawBody)).digest('hex');
}
