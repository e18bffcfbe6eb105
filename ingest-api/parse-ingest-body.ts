import { INGEST_SOURCES, type IngestSource } from '../common/ingest-body.js';
import type { JsonValue } from '../common/json-value.js';
import { extractOccurredAt, type ParsedIngestBody, toEpochMs } from '../lake/index.js';
import { isUuidText } from '../common/uuid-text.js';
import { IngestHttpError, type FieldError } from './errors.js';
import { NotJsonError, measureJsonDepth, sanitizeRawJson } from './sanitize.js';

/** Deepest nesting accepted; PostgreSQL's jsonb parser is recursive and hostile depth must get a 4xx. */
export const MAX_JSON_DEPTH = 512;
const TYPE_MAX_CHARS = 100;
const CHAT_JID_MAX_CHARS = 255;
const UPSERT_TYPE_MAX_CHARS = 50;

/**
 * Turns the raw bytes of an already authenticated request into a {@link ParsedIngestBody}, applying
 * the checks of architecture.md §8 in order: media type (415), JSON (400), then fields (422).
 * Unknown top-level fields are accepted and ignored.
 *
 * @param raw - the exact body bytes.
 * @param contentType - the `Content-Type` header, if any.
 * @throws IngestHttpError with code WA_ERR_UNSUPPORTED_MEDIA_TYPE, WA_ERR_INVALID_JSON or WA_ERR_INVALID_BODY.
 */
export function parseIngestBody(raw: Buffer, contentType: string | undefined): ParsedIngestBody {
  if (!isJsonMediaType(contentType)) {
    throw new IngestHttpError('WA_ERR_UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
  let sanitized;
  try {
    sanitized = sanitizeRawJson(raw);
  } catch (err) {
    if (err instanceof NotJsonError)
      throw new IngestHttpError('WA_ERR_INVALID_JSON', 'body is not valid JSON', undefined, { cause: err });
    throw err;
  }
  if (measureJsonDepth(sanitized.value) > MAX_JSON_DEPTH) {
    throw new IngestHttpError('WA_ERR_INVALID_BODY', 'body is nested too deeply', [
      { field: '(root)', message: `nesting deeper than ${MAX_JSON_DEPTH} levels` },
    ]);
  }
  const body = sanitized.value;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new IngestHttpError('WA_ERR_INVALID_BODY', 'body must be a JSON object', [
      { field: '(root)', message: 'must be an object' },
    ]);
  }
  const fields = validateFields(body);
  if (fields.length > 0) throw new IngestHttpError('WA_ERR_INVALID_BODY', 'body has invalid fields', fields);
  const type = body['type'] as string;
  const payload = body['payload'] as JsonValue;
  return {
    type,
    chatJid: (body['chat_jid'] ?? null) as string | null,
    bodyText: sanitized.text,
    payload,
    isSanitized: sanitized.isSanitized,
    capturedAt: readCapturedAt(body['captured_at']),
    upsertType:
      typeof body['upsert_type'] === 'string' && charCount(body['upsert_type']) <= UPSERT_TYPE_MAX_CHARS
        ? body['upsert_type']
        : null,
    occurredAt: extractOccurredAt(type, payload),
    accountJid: typeof body['account_jid'] === 'string' ? body['account_jid'] : null,
    legacyEventId: typeof body['legacy_event_id'] === 'string' ? body['legacy_event_id'].toLowerCase() : null,
    source: isIngestSource(body['source']) ? body['source'] : 'live',
  };
}

function validateFields(body: { [key: string]: JsonValue }): FieldError[] {
  const errors: FieldError[] = [];
  const type = body['type'];
  if (typeof type !== 'string' || type.length === 0)
    errors.push({ field: 'type', message: 'must be a non-empty string' });
  else if (charCount(type) > TYPE_MAX_CHARS)
    errors.push({ field: 'type', message: `must be at most ${TYPE_MAX_CHARS} characters` });
  const payload = body['payload'];
  if (payload === undefined) errors.push({ field: 'payload', message: 'is required' });
  else if (payload === null || typeof payload !== 'object')
    errors.push({ field: 'payload', message: 'must be an object or an array' });
  else if ((Array.isArray(payload) ? payload.length : Object.keys(payload).length) === 0)
    errors.push({ field: 'payload', message: 'must not be empty' });
  const chatJid = body['chat_jid'];
  if (chatJid !== undefined && chatJid !== null && typeof chatJid !== 'string')
    errors.push({ field: 'chat_jid', message: 'must be a string or null' });
  else if (typeof chatJid === 'string' && charCount(chatJid) > CHAT_JID_MAX_CHARS)
    errors.push({ field: 'chat_jid', message: `must be at most ${CHAT_JID_MAX_CHARS} characters` });
  const accountJid = body['account_jid'];
  if (
    accountJid !== undefined &&
    accountJid !== null &&
    (typeof accountJid !== 'string' || charCount(accountJid) > CHAT_JID_MAX_CHARS)
  )
    errors.push({
      field: 'account_jid',
      message: `must be a string of at most ${CHAT_JID_MAX_CHARS} characters or null`,
    });
  const legacyEventId = body['legacy_event_id'];
  if (
    legacyEventId !== undefined &&
    legacyEventId !== null &&
    (typeof legacyEventId !== 'string' || !isUuidText(legacyEventId))
  )
    errors.push({ field: 'legacy_event_id', message: 'must be a UUID or null' });
  const source = body['source'];
  if (source !== undefined && source !== null && !isIngestSource(source))
    errors.push({ field: 'source', message: `must be one of ${INGEST_SOURCES.join(', ')}, or null` });
  return errors;
}

function isIngestSource(value: JsonValue | undefined): value is IngestSource {
  return typeof value === 'string' && (INGEST_SOURCES as readonly string[]).includes(value);
}

/** `varchar(n)` counts code points, not UTF-16 units. */
function charCount(value: string): number {
  return Array.from(value).length;
}

function readCapturedAt(value: JsonValue | undefined): Date | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const ms = toEpochMs(value, 'auto');
  return ms === null ? null : new Date(ms);
}

function isJsonMediaType(contentType: string | undefined): boolean {
  const essence = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  return essence === 'application/json';
}
