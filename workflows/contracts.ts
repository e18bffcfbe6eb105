/**
 * Sandbox-safe contract shared by workflows, activities, the worker, the collector's sender and the CLI
 * (house style §1). Imports nothing with side effects; safe inside the Temporal workflow bundle.
 * Changing a string here is a breaking change for running workflows and stored histories.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Default task queue of the delivery worker (kebab-case; `TEMPORAL_TASK_QUEUE` overrides). */
export const DEFAULT_TASK_QUEUE = 'wa-lake-delivery';

/** Fixed workflow id of the single long-lived dead-letter workflow (DESIGN §7). */
export const DEAD_LETTER_WORKFLOW_ID = 'wa-lake-dead-letter';

/** Input of `deliverEvent`: the exact body string, so every retry signs and sends identical bytes (DESIGN §7). */
export interface DeliverEventInput {
  eventId: string;
  type: string;
  chatJid: string | null;
  /** Exact JSON text from the outbox `body` column. */
  body: string;
}

/** Result of a completed `deliverEvent`. */
export interface DeliverEventResult {
  eventId: string;
  /** HTTP status of the accepting response: 201 stored, 200 duplicate. */
  status: number;
  outcome: 'stored' | 'duplicate';
}

/** Values of the `WaDeliveryState` search attribute (DESIGN §7). */
export type DeliveryState = 'pending' | 'delivering' | 'delivered' | 'dead_lettered' | 'auth_blocked' | 'misconfigured';

/** Search attributes operators query in the Web UI (DESIGN §7). Registered by `wa-lake dev` and compose. */
export const WA_DELIVERY_STATE = defineSearchAttributeKey('WaDeliveryState', SearchAttributeType.KEYWORD);
export const WA_EVENT_TYPE = defineSearchAttributeKey('WaEventType', SearchAttributeType.KEYWORD);
export const WA_CHAT_JID = defineSearchAttributeKey('WaChatJid', SearchAttributeType.KEYWORD);
export const WA_LAST_HTTP_STATUS = defineSearchAttributeKey('WaLastHttpStatus', SearchAttributeType.INT);

/** Name → type of every custom search attribute, for `temporal server start-dev --search-attribute`. */
export const SEARCH_ATTRIBUTE_DEFINITIONS: ReadonlyArray<{ name: string; cliType: 'Keyword' | 'Int' }> = [
  { name: 'WaDeliveryState', cliType: 'Keyword' },
  { name: 'WaEventType', cliType: 'Keyword' },
  { name: 'WaChatJid', cliType: 'Keyword' },
  { name: 'WaLastHttpStatus', cliType: 'Int' },
];

/**
 * `ApplicationFailure.type` strings thrown by activities; they are the retry contract (house style §4).
 * Each equals the name of the error class it stands for.
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
