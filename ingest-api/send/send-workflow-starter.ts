import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Logger } from '../../common/logger.js';
import {
  SEND_MESSAGE_WORKFLOW_TYPE,
  WA_SEND_STATE,
  sendWorkflowId,
  type SendMessageInput,
} from '../../workflows/send-contracts.js';
import type { OutboundMessage, OutboundMessagesRepository } from '../db/outbound-messages-repository.js';

/** Options of {@link SendWorkflowStarter}; durations in ms. */
export interface SendWorkflowStarterOptions {
  client: Client;
  repository: Pick<OutboundMessagesRepository, 'markWorkflowStarted' | 'listUnstarted'>;
  /** Task queue of the normal worker (`TEMPORAL_TASK_QUEUE`); `sendMessage` runs there. */
  taskQueue: string;
  logger: Logger;
  /** Deadline of one start call, SDK retries included. */
  startTimeoutMs: number;
  /** How often the sweeper looks for committed rows without a workflow. */
  sweepIntervalMs: number;
  /** Rows per sweep. */
  sweepBatchSize: number;
}

/** The `sendMessage` input of a committed row (text travels in the input, architecture.md §12 retention). */
export function toSendMessageInput(message: OutboundMessage): SendMessageInput {
  return {
    messageId: message.id,
    accountId: message.accountId,
    toJid: message.toJid,
    text: message.text ?? '',
    category: message.category,
    deliverBy: message.deliverBy ? message.deliverBy.toISOString() : null,
    waMessageId: message.waMessageId,
    // Only when true: inputs of keys without a webhook stay exactly as before (issue #10 item 8).
    ...(message.hasStatusWebhook ? { statusWebhook: true } : {}),
  };
}

/**
 * Starts `sendMessage` (workflowId `send-<message_id>`) for committed intents (architecture.md §12: "accepted
 * means never lost"). The request handler calls {@link startSoon} after COMMIT without waiting, so the
 * answer never depends on Temporal; the sweeper retries every row whose start was not confirmed, so a
 * request accepted while Temporal was down starts when it is back. `WorkflowExecutionAlreadyStartedError`
 * counts as started (the workflow id is the idempotency barrier).
 */
export class SendWorkflowStarter {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;
  private readonly inFlight = new Set<Promise<boolean>>();
  private readonly logger: Logger;

  constructor(private readonly options: SendWorkflowStarterOptions) {
    this.logger = options.logger.child({ component: 'send-starter' });
  }

  /** Attempts the start in the background; failures are left to the sweeper. */
  startSoon(message: OutboundMessage): void {
    const attempt = this.start(message).finally(() => this.inFlight.delete(attempt));
    this.inFlight.add(attempt);
  }

  /** Starts one workflow now. @returns true when it exists in Temporal afterwards; never throws. */
  async start(message: OutboundMessage): Promise<boolean> {
    const { client, taskQueue, startTimeoutMs } = this.options;
    try {
      await client.withDeadline(Date.now() + startTimeoutMs, () =>
        client.workflow.start(SEND_MESSAGE_WORKFLOW_TYPE, {
          taskQueue,
          workflowId: sendWorkflowId(message.id),
          args: [toSendMessageInput(message)],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          typedSearchAttributes: [{ key: WA_SEND_STATE, value: 'queued' }],
        })
      );
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) {
        this.logger.warn({ err, messageId: message.id }, 'cannot start send workflow; the sweeper retries');
        return false;
      }
    }
    try {
      await this.options.repository.markWorkflowStarted(message.id);
    } catch (err) {
      this.logger.warn({ err, messageId: message.id }, 'cannot record send workflow start; the sweeper retries');
    }
    return true;
  }

  /** One sweep: starts up to `sweepBatchSize` unstarted rows older than the start timeout. @returns rows started. */
  sweepOnce(): Promise<number> {
    this.sweeping ??= (async () => {
      try {
        const olderThan = new Date(Date.now() - this.options.startTimeoutMs);
        const rows = await this.options.repository.listUnstarted(this.options.sweepBatchSize, olderThan);
        let started = 0;
        for (const row of rows) {
          if (!(await this.start(row))) break;
          started += 1;
        }
        if (started > 0) this.logger.info({ started }, 'send workflows started by the sweeper');
        return started;
      } catch (err) {
        this.logger.warn({ err }, 'send sweep failed');
        return 0;
      } finally {
        this.sweeping = null;
      }
    })();
    return this.sweeping;
  }

  /** Starts the periodic sweeper. */
  startSweeper(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweepOnce(), this.options.sweepIntervalMs);
    this.timer.unref();
  }

  /** Stops the sweeper and waits for background starts and a running sweep. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.inFlight, this.sweeping]);
  }
}
