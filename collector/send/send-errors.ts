import { SendFailureType, type SendFailureTypeName } from '../../workflows/send-contracts.js';
import { statusCodeOf } from '../session/disconnect-policy.js';

/**
 * Typed outcomes of one send through the session (architecture.md §12: classified by type, never by message
 * text). Each class name equals its `ApplicationFailure.type` in `SendFailureType`.
 */
export abstract class SendError extends Error {
  abstract readonly failureType: SendFailureTypeName;
  /** Whether retrying can help (the workflow decides when, until `deliver_by`). */
  abstract readonly isRetryable: boolean;
}

/** The session is not open (connecting, reconnecting, or no socket yet). */
export class SessionNotConnectedError extends SendError {
  override readonly name = 'SessionNotConnectedError';
  readonly failureType = SendFailureType.NotConnected;
  readonly isRetryable = true;
}

/** Presence or send did not settle within its timeout; the message may be on the wire. */
export class SendTimeoutError extends SendError {
  override readonly name = 'SendTimeoutError';
  readonly failureType = SendFailureType.Timeout;
  readonly isRetryable = true;
  constructor(
    readonly step: 'presence' | 'lookup' | 'send',
    readonly timeoutMs: number
  ) {
    super(`${step} did not finish within ${timeoutMs} ms`);
  }
}

/** WhatsApp or Baileys failed on its side (5xx-like, encryption failures). */
export class SendServerError extends SendError {
  override readonly name = 'SendServerError';
  readonly failureType = SendFailureType.ServerError;
  readonly isRetryable = true;
}

/** The number is not registered on WhatsApp. */
export class RecipientNotOnWhatsAppError extends SendError {
  override readonly name = 'RecipientNotOnWhatsAppError';
  readonly failureType = SendFailureType.NotOnWhatsApp;
  readonly isRetryable = false;
}

/** The recipient refuses messages from the account (blocked / forbidden, 403). */
export class RecipientBlockedError extends SendError {
  override readonly name = 'RecipientBlockedError';
  readonly failureType = SendFailureType.Blocked;
  readonly isRetryable = false;
}

/** WhatsApp refused the content (400/406/413). */
export class InvalidPayloadError extends SendError {
  override readonly name = 'InvalidPayloadError';
  readonly failureType = SendFailureType.InvalidPayload;
  readonly isRetryable = false;
}

/** The account was logged out (401): only a re-link helps. */
export class SessionLoggedOutError extends SendError {
  override readonly name = 'SessionLoggedOutError';
  readonly failureType = SendFailureType.LoggedOut;
  readonly isRetryable = false;
}

const CONNECTION_STATUSES = new Set([408, 428, 440, 503, 515]);
const PAYLOAD_STATUSES = new Set([400, 406, 413]);

/**
 * Turns whatever the socket threw into a {@link SendError}, by the Boom status code Baileys attaches
 * (`output.statusCode`): 401 logged out; 403 blocked; 400/406/413 invalid payload; 408/428/440/503/515
 * not connected; other 5xx and unknown errors server error (retryable: the safe side, since the id is
 * stable). Source: architecture.md §12, Baileys 7.0.0-rc14 `lib/Socket/socket.js`, `messages-send.js`.
 */
export function toSendError(err: unknown): SendError {
  if (err instanceof SendError) return err;
  const status = statusCodeOf(err);
  const cause = { cause: err };
  if (status === 401) return new SessionLoggedOutError('the account is logged out', cause);
  if (status === 403) return new RecipientBlockedError('WhatsApp refused this recipient', cause);
  if (PAYLOAD_STATUSES.has(status)) return new InvalidPayloadError(`WhatsApp refused the message (${status})`, cause);
  if (CONNECTION_STATUSES.has(status)) return new SessionNotConnectedError(`connection not usable (${status})`, cause);
  return new SendServerError(status === 0 ? 'send failed' : `send failed (${status})`, cause);
}
