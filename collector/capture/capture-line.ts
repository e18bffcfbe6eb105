import { BufferJSON } from '@whiskeysockets/baileys';
import { parseJsonExactly } from './exact-json.js';

/** One Baileys event read from a capture, whatever the file format. */
export interface CaptureRecord {
  /** Baileys event name, or the synthetic `groups.metadata`. */
  event: string;
  /** The event payload exactly as Baileys emitted it (bytes revived as Buffers). */
  data: unknown;
  /** When the collector (ours or the first one) received it. */
  capturedAt: Date;
}

/** Result of parsing one line: a record, a blank line to skip, or a malformed line with the reason. */
export type ParsedCaptureLine =
  { kind: 'record'; record: CaptureRecord } | { kind: 'blank' } | { kind: 'malformed'; reason: string };

/**
 * Serializes one event as a line of our capture format (no trailing newline):
 * `{"captured_at":"<ISO>","event":"<name>","data":<payload with Baileys' BufferJSON.replacer>}`.
 * JSON escapes `\n`, `\r` and U+0000, so the result is always one line. Source:, architecture.md §10.
 *
 * @throws TypeError when `data` cannot be serialized (circular reference, BigInt).
 */
export function formatCaptureLine(event: string, data: unknown, capturedAt: Date): string {
  const json = JSON.stringify(
    { captured_at: capturedAt.toISOString(), event, data: data ?? null },
    BufferJSON.replacer
  );
  return json;
}

function parseTime(value: unknown): Date | null {
  if (typeof value === 'number' && Number.isFinite(value)) {
    // The first collector wrote epoch ms; a value below 1e12 can only be seconds.
    return new Date(value < 1e12 ? value * 1000 : value);
  }
  if (typeof value !== 'string' || value.length === 0) return null;
  const date = /^\d+$/.test(value) ? parseTime(Number(value)) : new Date(value);
  return date !== null && Number.isFinite(date.getTime()) ? date : null;
}

/**
 * Parses one line of either capture format: ours (`{captured_at, event, data}`) or the first
 * collector's NDJSON trail (`{timestamp, event, data}`, timestamp ISO or epoch ms). Bytes are
 * revived with Baileys' `BufferJSON.reviver` and integers above 2^53 kept exact (as `bigint`), so a replay
 * sees the same values as a live session.
 * Never throws: a bad line is reported as `malformed` with the reason. Source: architecture.md §10.
 */
export function parseCaptureLine(line: string): ParsedCaptureLine {
  const text = line.trim();
  if (text.length === 0) return { kind: 'blank' };
  let value: unknown;
  try {
    // Integers above 2^53 keep every digit, as a live session's Longs do.
    value = parseJsonExactly(text, BufferJSON.reviver as (key: string, value: unknown) => unknown);
  } catch {
    return { kind: 'malformed', reason: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { kind: 'malformed', reason: 'not an object' };
  const fields = value as Record<string, unknown>;
  if (typeof fields['event'] !== 'string' || fields['event'].length === 0)
    return { kind: 'malformed', reason: 'no event name' };
  if (!('data' in fields) || fields['data'] === undefined) return { kind: 'malformed', reason: 'no data' };
  const capturedAt = parseTime(fields['captured_at'] ?? fields['timestamp']);
  if (capturedAt === null) return { kind: 'malformed', reason: 'no valid captured_at or timestamp' };
  return { kind: 'record', record: { event: fields['event'], data: fields['data'], capturedAt } };
}
