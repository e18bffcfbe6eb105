/**
 * Sandbox-safe contract shared by workflows, activities, the worker, the collector's sender and the CLI
 * (house style §1). Imports nothing with side effects; safe inside the Temporal workflow bundle.
 * Changing a string here is a breaking change for running workflows and stored histories.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { WA_SEND_STATE } from './send-contracts.js';

/** Default task queue of the delivery worker (kebab-case; `TEMPORAL_TASK_QUEUE` overrides). */
export const DEFAULT_TASK_QUEUE = 'wa-lake-delivery';

/** Fixed workflow id of the single long-lived dead-letter workflow (architecture.md §7). */
export const DEAD_LETTER_WORKFLOW_ID = 'wa-lake-dead-letter';

/** Input of `deliverEvent`: the exact body string, so every retry signs and sends identical bytes (architecture.md §7). */
export interface DeliverEventInput {
  eventId: string;
  type: string;
  chatJid: string | null;
  /** Exact JSON text from the outbox `body` column. */
  body: string;
  /**
   * Version of `deliverEvent`'s command sequence the starter asks for; absent = 1 (every history written
   * before). 2 = {@link DELIVER_EVENT_LEAN_VERSION}. Kept in the input, so replay and reset see it.
   */
  workflowVersion?: number;
}

/** Result of a completed `deliverEvent`. */
export interface DeliverEventResult {
  eventId: string;
  /** HTTP status of the accepting response: 201 stored, 200 duplicate. */
  status: number;
  outcome: 'stored' | 'duplicate';
}

/** Values of the `WaDeliveryState` search attribute (architecture.md §7). */
export type DeliveryState = 'pending' | 'delivering' | 'delivered' | 'dead_lettered' | 'auth_blocked' | 'misconfigured';

/** Search attributes operators query in the Web UI (architecture.md §7). Registered by `wa-lake dev` and compose. */
export const WA_DELIVERY_STATE = defineSearchAttributeKey('WaDeliveryState', SearchAttributeType.KEYWORD);
export const WA_EVENT_TYPE = defineSearchAttributeKey('WaEventType', SearchAttributeType.KEYWORD);
export const WA_CHAT_JID = defineSearchAttributeKey('WaChatJid', SearchAttributeType.KEYWORD);
export const WA_LAST_HTTP_STATUS = defineSearchAttributeKey('WaLastHttpStatus', SearchAttributeType.INT);

/**
 * Name → type of every custom search attribute, derived from the keys above and `WA_SEND_STATE` (outbound send,
 * architecture.md §12: `WaSendState = 'dispatched'` finds messages waiting for an ACK), for
 * `temporal server start-dev --search-attribute` and the compose setup.
 */
export const SEARCH_ATTRIBUTE_DEFINITIONS: ReadonlyArray<{ name: string; cliType: 'Keyword' | 'Int' }> = [
  WA_DELIVERY_STATE,
  WA_EVENT_TYPE,
  WA_CHAT_JID,
  WA_LAST_HTTP_STATUS,
  WA_SEND_STATE,
].map(({ name, type }) => ({ name, cliType: type === SearchAttributeType.INT ? 'Int' : 'Keyword' }));

/**
 * `ApplicationFailure.type` strings thrown by activities; they are the retry contract (house style §4).
 * Named like error classes (house style §3: type = class name) though no class is thrown: only these strings cross.
 */
export const FailureType = {
  /** 400/413/415/422/other 4xx: this event is rejected; non-retryable → dead-letter. */
  IngestRejected: 'IngestRejectedError',
  /** 401/403: the whole endpoint refuses our secret; alert and retry forever. */
  IngestUnauthorized: 'IngestUnauthorizedError',
  /** 3xx/404/405/410: the endpoint is misconfigured; alert and retry forever. */
  IngestMisconfigured: 'IngestMisconfiguredError',
  /** 408/425/429/5xx/timeout/network: retried by the activity retry policy with backoff. */
  IngestTransient: 'IngestTransientError',
} as const;
export type FailureTypeName = (typeof FailureType)[keyof typeof FailureType];

/**
 * Failure `type` of a run whose input names another workflow id (ADR 0026): a copied encrypted input. Non-retryable.
 */
export const FORGED_INPUT_FAILURE_TYPE = 'ForgedInputError';

/** Alert kind of a payload the worker refuses, or of an input or signal a key holder did not write (ADR 0022, ADR 0026). */
export const PAYLOAD_REFUSED_ALERT_KIND = 'payload_refused';

/** Workflow type names as shown in the Web UI (equal to the exported workflow function names). */
export const DELIVER_EVENT_WORKFLOW_TYPE = 'deliverEvent';
export const DEAD_LETTER_WORKFLOW_TYPE = 'deadLetter';

/**
 * `startToCloseTimeout` of one `postEventToIngest` attempt, in ms. The HTTP client timeout
 * (`HTTP_TIMEOUT_MS`) must stay below it so the client, not Temporal, ends a slow request (architecture.md §7).
 */
export const POST_EVENT_START_TO_CLOSE_TIMEOUT_MS = 60_000;

/**
 * `heartbeatTimeout` of a regular `postEventToIngest` attempt, in ms, and how often the activity
 * heartbeats while its POST is in flight: a worker killed mid-POST is noticed after this timeout,
 * not after the start-to-close timeout (ADR 0008).
 */
export const POST_EVENT_HEARTBEAT_TIMEOUT_MS = 5_000;
export const POST_EVENT_HEARTBEAT_INTERVAL_MS = 1_000;

/**
 * `workflowVersion` of the lean happy path (ADR 0008): the first POST runs as a
 * local activity inside the first workflow task and a first-try delivery writes no search attribute.
 * A version in the input, not `patched()`: a patch writes a marker and a `TemporalChangeVersion`
 * upsert into every history, two of the six events the lean path costs. Runs without it (older
 * starters, histories written before) keep the version 1 commands.
 */
export const DELIVER_EVENT_LEAN_VERSION = 2;

/** State `deliverEvent` carries across continue-as-new while the endpoint is blocked (401/403/3xx/404…). */
export interface DeliverEventCarry {
  /** Blocked turns already taken by earlier runs; drives the capped backoff. */
  blockedTurns: number;
}

/** Details attached (as `details[0]`) to every `Ingest*Error` ApplicationFailure thrown by `postEventToIngest`. */
export interface IngestFailureDetails {
  /** HTTP status, or null for a timeout / network error. */
  status: number | null;
  /** First characters of the response body (at most 1 000), empty when there was none. */
  responseExcerpt: string;
}

/** One dead-lettered event, as kept by the dead-letter workflow (architecture.md §7). */
export interface DeadLetterEntry {
  eventId: string;
  type: string;
  chatJid: string | null;
  httpStatus: number | null;
  responseExcerpt: string;
  /** Size of the kept body; the full body stays in the input of the failed `deliverEvent` run `eventId`. */
  bodySizeBytes: number;
  /** ISO-8601 workflow time at which the entry was recorded. */
  deadLetteredAt: string;
  /** ISO-8601 time of resolution (replayed or delivered after reset), null while open. */
  resolvedAt: string | null;
  resolution: string | null;
}

/**
 * One dead-letter entry packed for continue-as-new: `[eventId, type, chatJid, httpStatus, responseExcerpt,
 * bodySizeBytes, deadLetteredAt ms, resolvedAt ms, resolution]`, strings as indexes into
 * {@link PackedDeadLetterEntries.strings}; -1 stands for null..
 */
export type PackedDeadLetterRow = [string, number, number, number, number, number, number, number, number];

/** Dead-letter entries in the compact form carried across continue-as-new (a string table and one row each). */
export interface PackedDeadLetterEntries {
  strings: string[];
  rows: PackedDeadLetterRow[];
}

/** Input of the `deadLetter` workflow; also what it carries across continue-as-new. */
export interface DeadLetterWorkflowInput {
  /** Entries in the plain form (runs started by an older worker carry these). */
  entries?: DeadLetterEntry[];
  /** Entries in the compact form every run now carries; read after `entries`. */
  packedEntries?: PackedDeadLetterEntries;
  /** Continue-as-new after this many signals in one run (default 2 000; the server caps a run at 10 000). */
  continueAsNewAfterSignals?: number;
  /** Resolved entries kept across continue-as-new, newest first (default 1 000); open ones are always kept. */
  maxResolvedKept?: number;
}

/** Argument of {@link listDeadLettersQuery}: offset paging, oldest first. */
export interface DeadLetterListRequest {
  offset?: number;
  /** Page size, 1–1 000 (default 100). */
  limit?: number;
  includeResolved?: boolean;
}

/** Result of {@link listDeadLettersQuery}. */
export interface DeadLetterPage {
  entries: DeadLetterEntry[];
  /** Number of entries matching the request's filter. */
  total: number;
  unresolvedCount: number;
  /** Offset of the next page, or null on the last page. */
  nextOffset: number | null;
}

/** Argument of {@link resolveDeadLettersSignal}. */
export interface ResolveDeadLettersRequest {
  eventIds: string[];
  reason: string;
}

/** Adds (or re-opens) one entry in the dead-letter workflow; sent by signal-with-start. */
export const addDeadLetterSignal = defineSignal<[DeadLetterEntry]>('addDeadLetter');
/** Marks entries resolved; unknown ids are ignored. */
export const resolveDeadLettersSignal = defineSignal<[ResolveDeadLettersRequest]>('resolveDeadLetters');
/** Pages through the entries. */
export const listDeadLettersQuery = defineQuery<DeadLetterPage, [DeadLetterListRequest]>('listDeadLetters');

/** Workflow type of the per-kind alert window. */
export const ALERT_WINDOW_WORKFLOW_TYPE = 'alertWindow';

/** Input of the `alertWindow` workflow. */
export interface AlertWindowInput {
  /** Dedup window in ms (`ALERT_WINDOW_MS`). */
  windowMs: number;
  /**
   * The window's own workflow id ({@link alertWindowWorkflowId}), binding the encrypted input to it (ADR 0026 §7):
   * a window whose input does not decrypt or names another id is a squatter. Absent in windows started before.
   */
  workflowId?: string;
}

/**
 * Workflow id holding the alert window of `kind` for the workers of `taskQueue`: every worker of one
 * deployment shares the task queue, so they share the window.
 */
export function alertWindowWorkflowId(taskQueue: string, kind: string): string {
  return `wa-lake-alert-window:${taskQueue}:${kind}`;
}
/** Argument of {@link redactDeadLettersSignal}: event ids only, so no personal data enters the history. */
export interface RedactDeadLettersRequest {
  eventIds: string[];
}

/** Text that replaces an erased entry's `responseExcerpt` (architecture.md §14, ADR 0010). */
export const ERASED_EXCERPT = '[erased]';
/** Erasure: blanks the response excerpt of these entries (`wa-lake forget`); unknown ids are ignored. */
export const redactDeadLettersSignal = defineSignal<[RedactDeadLettersRequest]>('redactDeadLetters');
