import { EventEmitter } from 'node:events';
import pino from 'pino';
import { withoutUrlCredentials } from './redact-url-credentials.js';

/** What a handle (client, socket, request, stream) becomes in a log record: its class name only. */
export type HandleSummary = `[${string}]`;

/**
 * Whether `value` is a live handle rather than data: anything that emits events (a `pg.Client`, a
 * `net.Socket`, an `http.IncomingMessage`, a stream, a pool). Serializing one dumps its buffers,
 * connection parameters and sometimes credentials into the log.
 */
export function isHandle(value: unknown): value is EventEmitter {
  return value instanceof EventEmitter;
}

/** `'[Client]'`, `'[Socket]'`, … for a handle. */
export function summarizeHandle(value: EventEmitter): HandleSummary {
  return `[${value.constructor?.name ?? 'EventEmitter'}]`;
}

type SerializedError = ReturnType<typeof pino.stdSerializers.err>;

function stripHandles(serialized: Record<string, unknown>, depth: number): void {
  for (const [key, value] of Object.entries(serialized)) {
    if (isHandle(value)) serialized[key] = summarizeHandle(value);
    // pino's serializer turns `cause` and aggregated errors into plain objects that may hold handles too.
    else if (depth < 5 && value !== null && typeof value === 'object' && !Array.isArray(value))
      stripHandles(value as Record<string, unknown>, depth + 1);
  }
}

/**
 * The `err` serializer of every wa-lake logger: pino's standard one (type, message, stack, code,
 * cause, own fields), with every own field that holds a handle replaced by {@link summarizeHandle}, and the
 * credentials of any URL in the message or stack redacted (`fetch` names a `user:pw@` URL it refuses).
 * pg-pool, for instance, attaches the whole `pg.Client` to an idle client's error as `err.client`.
 * Source:, ADR 0022, house style §6.
 *
 * @returns the serialized error (a plain object); non-errors pass through pino's serializer unchanged.
 */
export function serializeError(err: unknown): SerializedError {
  const serialized = pino.stdSerializers.err(withoutUrlCredentials(err) as Error);
  if (serialized !== null && typeof serialized === 'object') stripHandles(serialized, 0);
  return serialized;
}

/**
 * pino `formatters.log`: replaces any top-level field of a log record that holds a handle (a client,
 * socket or request passed by mistake as `{ client }`) by its class name, so no log line ever
 * serializes one. Source:.
 *
 * @returns the same record, with handle-valued fields summarized.
 */
export function summarizeHandleFields(record: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(record)) {
    if (!isHandle(value)) continue;
    copy ??= { ...record };
    copy[key] = summarizeHandle(value);
  }
  return copy ?? record;
}
