import { ApplicationFailure } from '@temporalio/activity';
import { SEND_STARTS_PATH, type SendStartAnswer, type SendStartCheck } from '../common/send-transition-report.js';
import { postSignedInternal, type SignedInternalTarget } from './post-signed-internal.js';

/**
 * Builds the `checkSendStart` activity: asks the ingest API's signed `/api/internal/send-starts` where the message
 * stands in the lake (ADR 0026 §6), so `sendMessage` refuses to run an input whose message is already past
 * `queued` (a finished run re-started with its own copied input).
 *
 * @returns `{ state }`: the lake state, or null when the lake does not know the message.
 * @throws ApplicationFailure (retryable) on a non-2xx answer or a network error; 4xx other than 408/429 are
 *   non-retryable (`SendStartRejectedError`).
 */
export function createCheckSendStart(deps: {
  webhookUrl: string;
  webhookSecret: string;
  httpTimeoutMs: number;
  fetchImpl?: typeof fetch;
}): (input: { messageId: string }) => Promise<SendStartAnswer> {
  const target: SignedInternalTarget = {
    url: new URL(SEND_STARTS_PATH, deps.webhookUrl).toString(),
    webhookSecret: deps.webhookSecret,
    httpTimeoutMs: deps.httpTimeoutMs,
    fetchImpl: deps.fetchImpl ?? fetch,
  };
  return async function checkSendStart(input: { messageId: string }): Promise<SendStartAnswer> {
    const check: SendStartCheck = { message_id: input.messageId };
    const response = await postSignedInternal(target, input.messageId, JSON.stringify(check));
    if (response.ok) {
      const answer = (await response.json()) as Partial<SendStartAnswer>;
      return { state: typeof answer.state === 'string' ? answer.state : null };
    }
    await response.body?.cancel();
    const isPermanent = response.status >= 400 && response.status < 500 && ![408, 429].includes(response.status);
    throw ApplicationFailure.create({
      type: isPermanent ? 'SendStartRejectedError' : 'SendStartTransientError',
      message: `ingest answered ${response.status} to a send start check`,
      nonRetryable: isPermanent,
    });
  };
}
