import { refuseUnlessWorkflowIs, startedInput } from './forged-input.js';
import { sendWorkflowId, type SendMessageInput, type SendMessageResult } from './send-contracts.js';
import { SendMessageRun } from './send-message-run.js';
import { refuseUnlessFirstStart } from './send-start-once.js';

/**
 * One outbound message (architecture.md §12, ADR 0009; workflowId `send-<message_id>`): waits for a slot from the
 * account's gate (rate and priority), dispatches through the collector's session worker with the
 * WhatsApp id derived from `message_id`, then follows ACKs. States move forward only
 * (queued → dispatched → sent → delivered → read, or failed / expired); ACK signals are applied whenever
 * they arrive, so one that beats the `dispatched` record is kept. After the socket accepted the message
 * nothing re-sends it: a missing ACK raises one alert after `ackGraceMs`. Transient failures retry with
 * backoff and jitter until `deliver_by`; a retry after an in-flight timeout reuses the same WhatsApp id.
 * With `input.statusWebhook`, each state (from `queued`) also starts a `deliverSendStatus` child that POSTs
 * it to the API key's webhook (ADR 0011).
 *
 * @returns the final (or last) state, its reason code and the number of dispatch attempts.
 * @throws what an attempt rejects with that it does not classify (neither a typed `ApplicationFailure`,
 *   a timeout nor a deadline cancellation): the run's own cancellation (the run ends cancelled), another
 *   `TemporalFailure` (the run fails) or a plain error (the workflow task fails and Temporal retries it).
 */
export async function sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
  await refuseUnlessWorkflowIs(startedInput(input) && sendWorkflowId(input.messageId)); // ADR 0026
  await refuseUnlessFirstStart(input.messageId); // an input is used once (ADR 0026 §6)
  const run = new SendMessageRun(input);
  run.installHandlers();
  run.notifyQueued();
  await run.dispatchUntilDone();
  await run.flush();
  await run.followAcks();
  await run.flush();
  await run.settleStatusWebhooks();
  return run.result();
}
