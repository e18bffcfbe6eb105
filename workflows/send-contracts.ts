/**
 * Sandbox-safe contract of outbound send (architecture.md §12, ADR 0009), shared by the `sendMessage` and
 * `sendGate` workflows, the send activities, the collector's session worker, the ingest API and the
 * CLI. Wire names here are stored in histories: renaming one is a breaking change.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { SendCategory, SendState } from './send-states.js';

// The states are the send contract too; the lake and the CLI import them from send-states.ts alone.
export {
  SEND_CATEGORIES,
  SEND_STATES,
  FINAL_SEND_STATES,
  SEND_STATE_RANK,
  isForwardTransition,
  type SendCategory,
  type SendState,
} from './send-states.js';

/** Workflow id of the message `messageId` (architecture.md §12). */
export function sendWorkflowId(messageId: string): string {
  return `send-${messageId}`;
}

/** Workflow id of the per-account rate/priority gate. */
export function sendGateWorkflowId(accountId: string): string {
  return `send-gate-${accountId}`;
}

/** Task queue of the collector process that owns the account's WhatsApp socket (dispatch runs there). */
export function sessionTaskQueue(accountId: string): string {
  return `wa-lake-session-${accountId}`;
}

export const SEND_MESSAGE_WORKFLOW_TYPE = 'sendMessage';
export const SEND_GATE_WORKFLOW_TYPE = 'sendGate';

/** `WaSendState` search attribute: finds messages stuck in `dispatched` (architecture.md §12). No personal data. */
export const WA_SEND_STATE = defineSearchAttributeKey('WaSendState', SearchAttributeType.KEYWORD);

/** Input of `sendMessage`; the text travels in the input so reconciliation works with retention 0. */
export interface SendMessageInput {
  messageId: string;
  accountId: string;
  /** Normalized recipient JID: `…@g.us` or `digits@s.whatsapp.net`. */
  toJid: string;
  text: string;
  category: SendCategory;
  /** ISO-8601 deadline, or null for none. */
  deliverBy: string | null;
  /** WhatsApp message id derived from `messageId` (same on every attempt). */
  waMessageId: string;
  /** Tunables; tests shorten them. All in ms. */
  options?: SendMessageOptions;
  /**
   * Whether the API key has a status webhook (ADR 0011): each state reached is then delivered by
   * a `deliverSendStatus` child. Absent in every history written before, so they replay unchanged
   * (the command sequence changes only for runs started with it, ADR 0011).
   */
  statusWebhook?: boolean;
}

/** Tunables of `sendMessage` (ms). */
export interface SendMessageOptions {
  /** Alert after a message stays `dispatched` without any ACK this long (default 15 min). */
  ackGraceMs?: number;
  /** Give up waiting for ACKs after this long and complete, state unchanged (default 7 days). */
  ackWaitMs?: number;
  /** First retry delay for transient dispatch failures (default 2 s, doubling, capped at 5 min). */
  retryInitialMs?: number;
}

/** Result of `sendMessage`. */
export interface SendMessageResult {
  messageId: string;
  state: SendState;
  reasonCode: string | null;
  /** Dispatch activity attempts that ran (each one reuses `waMessageId`). */
  dispatchAttempts: number;
}

/** Statuses WhatsApp reports for a sent message, already mapped from Baileys' `WAMessageStatus`. */
export type SendAckStatus = 'sent' | 'delivered' | 'read' | 'failed';

/**
 * What binds a state-changing signal's argument to the workflow it is meant for (ADR 0026 §4): the target
 * workflow id, inside the encrypted argument, so an argument copied from one history and signalled to another
 * workflow is refused. Absent only in histories written before the binding.
 */
export interface SignalTarget {
  /** Workflow id the sender addressed (`send-<message_id>`, `send-gate-<account>`). */
  target?: string;
}

/**
 * Identity of one control signal (`pauseSending`, `resumeSending`; ADR 0026 §5): the issuing time and a random
 * nonce, both inside the encrypted argument. The gate applies a control signal only when it is newer than the last
 * one it applied and issued within {@link CONTROL_SIGNAL_FRESHNESS_MS} of the gate's time.
 */
export interface ControlSignalStamp extends SignalTarget {
  /** Epoch ms at which the sender issued it. */
  issuedAtMs?: number;
  /** Random (UUID) nonce: two signals issued in the same ms still differ. */
  nonce?: string;
}

/**
 * How far a control signal's `issuedAtMs` may lie from the gate's time (either way) when the gate handles it:
 * 10 minutes, room for clock skew and a briefly absent worker, short enough that a copied signal replayed to a
 * fresh gate (no last control signal to compare with) is refused.
 */
export const CONTROL_SIGNAL_FRESHNESS_MS = 10 * 60_000;

/** One ACK, routed by the collector to `send-<message_id>`; `target` is that workflow id. */
export interface SendAck extends SignalTarget {
  status: SendAckStatus;
  /** ISO-8601 time the collector saw it. */
  at: string;
  reasonCode?: string;
}

/** One state reached, with its workflow time. */
export interface SendTransition {
  state: SendState;
  at: string;
  reasonCode: string | null;
}

/** ACK signal; buffered by the workflow, so an ACK before `dispatched` is recorded is kept. */
export const sendAckSignal = defineSignal<[SendAck]>('sendAck');
/** Current state and transitions of a `sendMessage`. */
export const sendStatusQuery = defineQuery<{ state: SendState; transitions: SendTransition[] }>('sendStatus');

/** A message asking the gate for a dispatch slot; `target` is the gate's workflow id. */
export interface DispatchRequest extends SignalTarget {
  messageId: string;
  category: SendCategory;
  /** Deadline in epoch ms, or null. */
  deliverByMs: number | null;
  /** The recipient, for per-recipient pacing (ADR 0015); absent in requests of older workflows. */
  recipientJid?: string;
}

/** Configuration of the per-account gate (token bucket, architecture.md §12). */
export interface SendGateInput {
  accountId: string;
  /** Tokens added per minute (`SEND_RATE_PER_MINUTE`). */
  ratePerMinute: number;
  /** Bucket capacity (`SEND_RATE_BURST`). */
  burst: number;
  /** Extra random delay for `marketing` grants only, 0 = none (ms). */
  marketingJitterMaxMs: number;
  /** Carried across continue-as-new. */
  carry?: SendGateCarry;
  /**
   * Least time between two grants to one recipient (`SEND_RECIPIENT_INTERVAL_MS`, ADR 0015); absent or 0:
   * no pacing (gates started before it keep their input until restarted).
   */
  perRecipientIntervalMs?: number;
}

/** State a gate carries across continue-as-new. */
export interface SendGateCarry {
  queue: Array<DispatchRequest & { seq: number }>;
  tokens: number;
  lastRefillMs: number;
  nextSeq: number;
  paused: boolean;
  pausedReason: string | null;
  /** Latest grants (epoch ms), so the rate stays observable across runs. */
  /** Last grant time per recipient within the pacing interval (ADR 0015). */
  lastGrantByRecipient?: Record<string, number>;
  recentGrants?: Array<{ messageId: string; atMs: number }>;
  /** Identity of the last control signal applied (ADR 0026 §5); absent before one was. */
  lastControl?: { issuedAtMs: number; nonce: string };
}

/** Asks the gate for a slot (signal-with-start by `sendMessage`). */
export const requestDispatchSignal = defineSignal<[DispatchRequest]>('requestDispatch');
/** The gate's answer to `send-<message_id>`: go now. */
export const dispatchGrantedSignal = defineSignal<[DispatchGrant]>('dispatchGranted');

/** Argument of {@link dispatchGrantedSignal}: the grant's workflow time, bound to `send-<message_id>`. */
export interface DispatchGrant extends SignalTarget {
  grantedAtMs: number;
}

/** Why an account's sending is paused (`operator`, `logged_out`), stamped (ADR 0026 §5). */
export interface PauseSendingRequest extends ControlSignalStamp {
  reason: string;
}

/** Pauses the account's sending (operator, or the session reported logged out). */
export const pauseSendingSignal = defineSignal<[PauseSendingRequest]>('pauseSending');
/**
 * Who resumed an account's sending, and when (ISO-8601). The argument exists so the signal carries an encrypted
 * payload: a resume without one is ignored with an alert (ADR 0026).
 */
export interface ResumeSendingRequest extends ControlSignalStamp {
  /** `operator` (`wa-lake sending resume`) or `session` (the collector's session reopened). */
  requestedBy: string;
  at: string;
}

/** Resumes the account's sending. */
export const resumeSendingSignal = defineSignal<[ResumeSendingRequest]>('resumeSending');
/** Gate status: queue length and pause state. */
export const sendGateStatusQuery = defineQuery<SendGateStatus>('sendGateStatus');

/** Answer of {@link sendGateStatusQuery}; `recentGrants` are workflow times (epoch ms) of the latest grants. */
export interface SendGateStatus {
  queued: number;
  paused: boolean;
  pausedReason: string | null;
  tokens: number;
  recentGrants: Array<{ messageId: string; atMs: number }>;
}

/**
 * `ApplicationFailure.type` strings of the dispatch activity (the retry contract; each equals an error
 * class name in collector/session/send-errors.ts). Classified from typed session errors, never from
 * message text (architecture.md §12).
 */
export const SendFailureType = {
  /** Session not open: retry with backoff until `deliver_by`. */
  NotConnected: 'SessionNotConnectedError',
  /** Presence or send exceeded its timeout while in flight: retry with the same WhatsApp id. */
  Timeout: 'SendTimeoutError',
  /** WhatsApp answered with a server-side error: retry. */
  ServerError: 'SendServerError',
  /** Recipient number is not on WhatsApp: fail at once. */
  NotOnWhatsApp: 'RecipientNotOnWhatsAppError',
  /** Recipient blocked the account / not allowed: fail at once. */
  Blocked: 'RecipientBlockedError',
  /** WhatsApp refused the payload: fail at once. */
  InvalidPayload: 'InvalidPayloadError',
  /** Account logged out (401): pause the account, alert, wait for re-link. */
  LoggedOut: 'SessionLoggedOutError',
} as const;
export type SendFailureTypeName = (typeof SendFailureType)[keyof typeof SendFailureType];

/** Reason code stored for each failure type that ends a message as `failed`. */
export const SEND_REASON_CODES: Readonly<Record<SendFailureTypeName, string>> = {
  SessionNotConnectedError: 'not_connected',
  SendTimeoutError: 'timeout',
  SendServerError: 'server_error',
  RecipientNotOnWhatsAppError: 'not_on_whatsapp',
  RecipientBlockedError: 'blocked',
  InvalidPayloadError: 'invalid_payload',
  SessionLoggedOutError: 'logged_out',
};

/** Input of the dispatch activity (runs in the collector, on {@link sessionTaskQueue}). */
export interface DispatchWhatsAppMessageInput {
  messageId: string;
  waMessageId: string;
  toJid: string;
  text: string;
  category: SendCategory;
  /** Workflow time of the gate's grant (epoch ms); the rate is checked on these. */
  grantedAtMs: number;
}

/** Timeouts of the dispatch activity (architecture.md §12: presence ≤ 5 s, send ≤ 20 s). */
export const PRESENCE_TIMEOUT_MS = 5_000;
export const SEND_TIMEOUT_MS = 20_000;
/** Start-to-close of one dispatch attempt: both calls plus a margin. */
export const DISPATCH_START_TO_CLOSE_MS = PRESENCE_TIMEOUT_MS + SEND_TIMEOUT_MS + 5_000;
/**
 * `heartbeatTimeout` of a dispatch attempt and how often the activity heartbeats while it runs (ADR 0017): a
 * collector killed mid-send is noticed after this timeout, so the retry (same WhatsApp id) comes in seconds instead
 * of after {@link DISPATCH_START_TO_CLOSE_MS}.
 */
export const DISPATCH_HEARTBEAT_TIMEOUT_MS = 5_000;
export const DISPATCH_HEARTBEAT_INTERVAL_MS = 1_000;

/** Activities of the collector's session worker (implemented in collector/send/, typed here for workflows). */
export interface SessionActivities {
  /**
   * Sends one text through the live socket with `messageId = waMessageId`: presence ≤ 5 s, send ≤ 20 s.
   * Throws ApplicationFailure with a {@link SendFailureType} type.
   */
  dispatchWhatsAppMessage(input: DispatchWhatsAppMessageInput & { deliverByMs: number | null }): Promise<void>;
}

/** Workflow type delivering one status change to the API key's webhook (ADR 0011). */
export const DELIVER_SEND_STATUS_WORKFLOW_TYPE = 'deliverSendStatus';

/**
 * `webhook-id` of the status change `state` of `messageId`, and the workflow id of its `deliverSendStatus`
 * child: the same on every retry, so receivers deduplicate on it (Standard Webhooks idempotency key).
 */
export function sendStatusWebhookId(messageId: string, state: SendState): string {
  return `send-status-${messageId}-${state}`;
}

/** Input of `deliverSendStatus`: one state reached, as the caller will see it. */
export interface SendStatusDeliveryInput {
  messageId: string;
  state: SendState;
  /** ISO-8601 workflow time the state was reached (receivers order by it; order on the wire is not kept). */
  at: string;
  reasonCode: string | null;
  /** 1-based position of this state among the message's transitions (`queued` = 1). */
  sequence: number;
}

/** Result of `deliverSendStatus` / `postSendStatusWebhook`. */
export interface SendStatusDeliveryResult {
  /** HTTP status of the receiver's 2xx, or null when the key has no webhook any more. */
  status: number | null;
  outcome: 'delivered' | 'no_webhook';
}

/**
 * `ApplicationFailure.type` strings of `postSendStatusWebhook`, classified like lake delivery
 * (architecture.md §7 table, `classifyDeliveryResponse`): the retry contract of `deliverSendStatus`.
 */
export const StatusWebhookFailureType = {
  /** 400/413/415/422/other 4xx: non-retryable → dead-letter. */
  Rejected: 'StatusWebhookRejectedError',
  /** 401/403: the receiver refuses our signature; alert and retry. */
  Unauthorized: 'StatusWebhookUnauthorizedError',
  /** 3xx/404/405/410: the URL is wrong; alert and retry (an operator may fix the URL meanwhile). */
  Misconfigured: 'StatusWebhookMisconfiguredError',
  /** 408/425/429/5xx/timeout/network, or the ingest API could not prepare the request: retried with backoff. */
  Transient: 'StatusWebhookTransientError',
} as const;

/** Client timeout of one POST to a caller's webhook (architecture.md §12: customer webhook ≤ 10 s). */
export const STATUS_WEBHOOK_TIMEOUT_MS = 10_000;

/** `type` prefix of the dead-letter entries `deliverSendStatus` writes (`send_status:<state>`, ADR 0011). */
export const SEND_STATUS_DEAD_LETTER_TYPE_PREFIX = 'send_status:';
