import { createHash } from 'node:crypto';
import type { JsonValue } from '../../common/json-value.js';

/** Marker that replaces an inline binary over the limit (architecture.md §5). */
export interface OmittedBinaryMarker {
  omitted: true;
  /** Decoded size of the binary in bytes. */
  sizeBytes: number;
  /** Lower-case hex SHA-256 of the decoded bytes. */
  sha256: string;
}

function decodedLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

function isTaggedBytes(value: JsonValue): value is { type: 'Buffer'; data: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return value.type === 'Buffer' && typeof value.data === 'string' && Object.keys(value).length === 2;
}

/**
 * Replaces every `BufferJSON` binary whose decoded size is over `limitBytes` by
 * `{omitted: true, sizeBytes, sha256}`. Called AFTER the `event_id` is derived, so stripping never
 * changes a key (architecture.md §5). Returns the input unchanged (same reference) when nothing is stripped.
 *
 * @param value - a normalized payload.
 * @param limitBytes - largest decoded binary kept inline (default 64 KiB in the pipeline).
 */
export function stripLargeBinaries(value: JsonValue, limitBytes: number): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (isTaggedBytes(value)) {
    const sizeBytes = decodedLength(value.data);
    if (sizeBytes <= limitBytes) return value;
    const sha256 = createHash('sha256').update(Buffer.from(value.data, 'base64')).digest('hex');
    const marker: OmittedBinaryMarker = { omitted: true, sizeBytes, sha256 };
    return { ...marker };
  }
  let changed = false;
  if (Array.isArray(value)) {
    const out = value.map((element) => {
      const stripped = stripLargeBinaries(element, limitBytes);
      changed ||= stripped !== element;
      return stripped;
    });
    return changed ? out : value;
  }
  const out: Record<string, JsonValue> = {};
  for (const [key, child] of Object.entries(value)) {
    const stripped = stripLargeBinaries(child, limitBytes);
    changed ||= stripped !== child;
    out[key] = stripped;
  }
  return changed ? out : value;
}
