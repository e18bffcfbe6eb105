import type { Client } from '@temporalio/client';
import type { Alert, AlertSink } from '../common/alert-sink.js';
import type { WebhookUrlPolicy } from '../common/webhook-url-policy.js';
import type { DeadLetterEntry, DeadLetterWorkflowInput, ResolveDeadLettersRequest } from '../workflows/contracts.js';
import type {
  DispatchRequest,
  SendStatusDeliveryInput,
  SendStatusDeliveryResult,
} from '../workflows/send-contracts.js';
import type { SendStartAnswer } from '../common/send-transition-report.js';
import { createCheckSendStart } from './check-send-start.js';
import { createPostEventToIngest, type PostEventInput, type PostEventResult } from './post-event.js';
import { createPostSendStatusWebhook } from './post-send-status-webhook.js';
import { createRecordDeadLetter } from './record-dead-letter.js';
import { createReportSendTransition, type ReportSendTransitionInput } from './report-send-transition.js';
import { createSendGateActivities, type SendGateSettings } from './request-dispatch-slot.js';
import {
  createReplaceSquattedStatusWebhook,
  type StatusWebhookHolderCheck,
  type StatusWebhookHolderOutcome,
} from './replace-squatted-status-webhook.js';
import { createResolveDeadLetters } from './resolve-dead-letters.js';
import { createSendAlert, type SendAlertResult } from './send-alert.js';

/** The activity interface workflows proxy (type import only). Names are verb-object (house style §3). */
export interface Activities {
  postEventToIngest(input: PostEventInput): Promise<PostEventResult>;
  sendAlert(alert: Alert): Promise<SendAlertResult>;
  recordDeadLetter(entry: DeadLetterEntry): Promise<void>;
  resolveDeadLetters(request: ResolveDeadLettersRequest): Promise<void>;
  // Outbound send (architecture.md §12, ADR 0009).
  reportSendTransition(input: ReportSendTransitionInput): Promise<void>;
  checkSendStart(input: { messageId: string }): Promise<SendStartAnswer>;
  requestDispatchSlot(input: { accountId: string; request: DispatchRequest }): Promise<void>;
  pauseAccountSending(input: { accountId: string; reason: string }): Promise<void>;
  // Status webhooks to the caller (ADR 0011).
  postSendStatusWebhook(input: SendStatusDeliveryInput): Promise<SendStatusDeliveryResult>;
  replaceSquattedStatusWebhook(check: StatusWebhookHolderCheck): Promise<StatusWebhookHolderOutcome>;
}

/** Default per-account send rate (architecture.md §12): 20 messages per minute, bursts of 5, no marketing jitter. */
export const DEFAULT_SEND_GATE: SendGateSettings = { ratePerMinute: 20, burst: 5, marketingJitterMaxMs: 0 };

/** Everything the activities need, built once by the worker (house style §1: factory over injected clients). */
export interface ActivityDeps {
  /** `WEBHOOK_URL`: the full ingest URL. */
  webhookUrl: string;
  /** Signing secret: the first of `WHATSAPP_WEBHOOK_SECRET`. */
  webhookSecret: string;
  /** Client timeout of one POST in ms (`HTTP_TIMEOUT_MS`). */
  httpTimeoutMs: number;
  /** Windowed alert sink (`createWindowedAlertSink`). */
  alertSink: AlertSink;
  /** Temporal client, for signal-with-start of the dead-letter workflow. */
  client: Client;
  /** The worker's task queue (the dead-letter workflow runs there too). */
  taskQueue: string;
  /** Start input of the dead-letter workflow when it has to be started (tests lower its threshold). */
  deadLetterStartInput?: DeadLetterWorkflowInput;
  /** Injectable `fetch` (tests). */
  fetchImpl?: typeof fetch;
  /** What callers' status-webhook URLs may point at (ADR 0014); checked at every connection. */
  statusWebhookPolicy: WebhookUrlPolicy;
  /** Token bucket of every account's send gate (default {@link DEFAULT_SEND_GATE}). */
  sendGate?: SendGateSettings;
}

/**
 * Builds the activity implementations registered by the worker. Workflows type their proxies with
 * {@link Activities} (type import only). Source: architecture.md §7, house style §1.
 *
 * @returns `{ postEventToIngest, sendAlert, recordDeadLetter, resolveDeadLetters }`.
 */
export function createActivities(deps: ActivityDeps): Activities {
  const deadLetterDeps = {
    client: deps.client,
    taskQueue: deps.taskQueue,
    deadLetterStartInput: deps.deadLetterStartInput,
  };
  return {
    postEventToIngest: createPostEventToIngest(deps),
    sendAlert: createSendAlert(deps),
    recordDeadLetter: createRecordDeadLetter({ ...deadLetterDeps, alertSink: deps.alertSink }),
    resolveDeadLetters: createResolveDeadLetters(deadLetterDeps),
    reportSendTransition: createReportSendTransition(deps),
    checkSendStart: createCheckSendStart(deps),
    postSendStatusWebhook: createPostSendStatusWebhook(deps),
    replaceSquattedStatusWebhook: createReplaceSquattedStatusWebhook(deps),
    ...createSendGateActivities({
      client: deps.client,
      taskQueue: deps.taskQueue,
      gate: deps.sendGate ?? DEFAULT_SEND_GATE,
    }),
  };
}
