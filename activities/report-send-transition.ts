import { ApplicationFailure } from '@temporalio/activity';
import { SEND_TRANSITIONS_PATH, type SendTransitionReport } from '../common/send-transition-report.js';
import type { SendTransition } from '../workflows/send-contracts.js';
import { postSignedInternal, type SignedInternalTarget } from './post-signed-internal.js';

/** Input of `reportSendTransition`. */
export interface ReportSendTransitionInput extends SendTransition {
  messageId: string;
}

/**
 * Builds the `reportSendTransition` activity: POSTs one state reached by `sendMessage` to the ingest
 * API's signed `/api/internal/send-transitions` (same origin as `WEBHOOK_URL`, same HMAC as lake
 * deliveries, architecture.md §7), so `GET /api/v1/messages/:id` shows it. Idempotent on the server (one row
 * per message and state). Source: architecture.md §12, ADR 0009.
 *
 * @throws ApplicationFailure (retryable) on a non-2xx answer or a network error; 4xx other than
 *   408/429 are non-retryable (`SendTransitionRejectedError`): the row is unknown or the report malformed.
 */
export function createReportSendTransition(deps: {
  webhookUrl: string;
  webhookSecret: string;
  httpTimeoutMs: number;
  fetchImpl?: typeof fetch;
}): (input: ReportSendTransitionInput) => Promise<void> {
  const target: SignedInternalTarget = {
    url: new URL(SEND_TRANSITIONS_PATH, deps.webhookUrl).toString(),
    webhookSecret: deps.webhookSecret,
    httpTimeoutMs: deps.httpTimeoutMs,
    fetchImpl: deps.fetchImpl ?? fetch,
  };
  return async function reportSendTransition(input: ReportSendTransitionInput): Promise<void> {
    const report: SendTransitionReport = {
      message_id: input.messageId,
      state: input.state,
      at: input.at,
      reason_code: input.reasonCode,
    };
    const response = await postSignedInternal(target, input.messageId, JSON.stringify(report));
    await response.body?.cancel();
    if (response.ok) return;
    const isPermanent = response.status >= 400 && response.status < 500 && ![408, 429].includes(response.status);
    throw ApplicationFailure.create({
      type: isPermanent ? 'SendTransitionRejectedError' : 'SendTransitionTransientError',
      message: `ingest answered ${response.status} to a send transition report`,
      nonRetryable: isPermanent,
    });
  };
}
