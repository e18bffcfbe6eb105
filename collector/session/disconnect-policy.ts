/**
 * What the session does after WhatsApp closes the connection, decided on the numeric status code
 * (never on `DisconnectReason` names: 408 is both `connectionLost` and `timedOut`). Source: architecture.md §10,
 * house style §10.7, Baileys 7.0.0-rc14 `lib/Types/index.d.ts` and `lib/Utils/generics.js`.
 */
export type DisconnectDecision =
  /** 401: this device was unlinked; only a new link (QR or pairing code) helps. */
  | { action: 'stop'; reason: 'logged_out'; statusCode: number }
  /** 403: WhatsApp forbids this account; reconnecting would only repeat the refusal. */
  | { action: 'stop'; reason: 'forbidden'; statusCode: number }
  /** 440: another client took over the session; reconnect with backoff, alert when repeated. */
  | { action: 'reconnect'; reason: 'replaced'; statusCode: number }
  /** 515: normal right after pairing; reconnect at once (the backoff still counts it). */
  | { action: 'reconnect'; reason: 'restart_required'; statusCode: number }
  /** 408 caused by a socket error (ENOTFOUND, ECONNREFUSED, timeout): WhatsApp cannot be reached. */
  | { action: 'reconnect'; reason: 'network'; statusCode: number }
  /** Anything else (428 closed, 408 lost, 500 bad session, 503, 411, unknown): reconnect with backoff. */
  | { action: 'reconnect'; reason: 'connection_lost'; statusCode: number };

/** Baileys `DisconnectReason` values used here, by number. */
const STATUS_LOGGED_OUT = 401;
const STATUS_FORBIDDEN = 403;
const STATUS_TIMED_OUT = 408;
const STATUS_REPLACED = 440;
const STATUS_RESTART_REQUIRED = 515;

/**
 * Reads the status code of `lastDisconnect.error` (a Boom: `output.statusCode`).
 * @returns the code, or 0 when the error carries none (e.g. `end(undefined)`).
 */
export function statusCodeOf(error: unknown): number {
  const output = (error as { output?: { statusCode?: unknown } } | null | undefined)?.output;
  return typeof output?.statusCode === 'number' ? output.statusCode : 0;
}

/** The Node error code behind a 408 (`ENOTFOUND`, `ECONNREFUSED`, …) when Baileys attached it as `data`. */
export function socketErrorCodeOf(error: unknown): string | null {
  const data = (error as { data?: { code?: unknown } } | null | undefined)?.data;
  return typeof data?.code === 'string' ? data.code : null;
}

/**
 * Decides what to do after a close.
 * @param error - `lastDisconnect.error` from `connection.update`.
 */
export function decideOnDisconnect(error: unknown): DisconnectDecision {
  const statusCode = statusCodeOf(error);
  switch (statusCode) {
    case STATUS_LOGGED_OUT:
      return { action: 'stop', reason: 'logged_out', statusCode };
    case STATUS_FORBIDDEN:
      return { action: 'stop', reason: 'forbidden', statusCode };
    case STATUS_REPLACED:
      return { action: 'reconnect', reason: 'replaced', statusCode };
    case STATUS_RESTART_REQUIRED:
      return { action: 'reconnect', reason: 'restart_required', statusCode };
    default: {
      const message = error instanceof Error ? error.message : '';
      const isNetwork =
        statusCode === STATUS_TIMED_OUT &&
        (socketErrorCodeOf(error) !== null || /timed out|WebSocket Error/i.test(message));
      return { action: 'reconnect', reason: isNetwork ? 'network' : 'connection_lost', statusCode };
    }
  }
}

/**
 * A JSON-safe copy of `lastDisconnect.error` for capture files: the Boom's message, `output.statusCode`
 * and the socket error code. The raw error can hold circular WebSocket objects.
 */
export function describeDisconnectError(error: unknown): Record<string, unknown> | null {
  if (error == null) return null;
  const code = socketErrorCodeOf(error);
  return {
    message: error instanceof Error ? error.message : typeof error === 'string' ? error : 'non-Error disconnect reason',
    isBoom: true,
    output: { statusCode: statusCodeOf(error) },
    data: code === null ? null : { code },
  };
}
