import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Logger } from '../../common/logger.js';
import { sendAckSignal, sendWorkflowId, type SendAck, type SendAckStatus } from '../../workflows/send-contracts.js';

/** Baileys `WAMessageStatus` numbers (proto `WebMessageInfo.Status`): ERROR 0, PENDING 1, SERVER_ACK 2, DELIVERY_ACK 3, READ 4, PLAYED 5. */
const STATUS_TO_ACK: Readonly<Record<number, SendAckStatus>> = {
  0: 'failed',
  2: 'sent',
  3: 'delivered',
  4: 'read',
  5: 'read',
};

/** One ACK found in a Baileys event, for a message this account sent. */
export interface ExtractedAck {
  waMessageId: string;
  status: SendAckStatus;
}

interface MessageKeyLike {
  id?: string | null;
  fromMe?: boolean | null;
}

/**
 * Pulls ACKs of our own messages out of `messages.update` (direct chats and groups: `update.status`)
 * and `message-receipt.update` (groups: per-reader `receipt` times). Pure; unknown shapes yield nothing.
 * Source: architecture.md §12, Baileys 7.0.0-rc14 `WAMessageUpdate`, `MessageUserReceiptUpdate`.
 */
export function extractAcks(event: string, data: unknown): ExtractedAck[] {
  if (!Array.isArray(data)) return [];
  const acks: ExtractedAck[] = [];
  for (const item of data as Array<Record<string, unknown>>) {
    const key = item['key'] as MessageKeyLike | undefined;
    if (!key?.fromMe || typeof key.id !== 'string') continue;
    if (event === 'messages.update') {
      const status = (item['update'] as { status?: unknown } | undefined)?.status;
      const ack = typeof status === 'number' ? STATUS_TO_ACK[status] : undefined;
      if (ack) acks.push({ waMessageId: key.id, status: ack });
    } else if (event === 'message-receipt.update') {
      const receipt = item['receipt'] as Record<string, unknown> | undefined;
      const status: SendAckStatus | null =
        receipt?.['readTimestamp'] || receipt?.['playedTimestamp']
          ? 'read'
          : receipt?.['receiptTimestamp']
            ? 'delivered'
            : null;
      if (status) acks.push({ waMessageId: key.id, status });
    }
  }
  return acks;
}

/**
 * Routes ACKs of messages this account sent through wa-lake to `send-<message_id>` by signal (architecture.md §12,
 *). Runs beside the edge filter, which still decides alone what enters the lake: direct
 * chats, receipts and the status items of our own messages (`own_message_ack`) never do. A failed signal is retried a few times and then logged; the workflow's
 * missing-ACK alert covers the rest. An ACK for a workflow that has ended is dropped quietly.
 */
export class AckRouter {
  private readonly logger: Logger;

  constructor(
    private readonly options: {
      client: Client;
      lookup: (waMessageId: string) => string | null;
      logger: Logger;
      now?: () => Date;
    }
  ) {
    this.logger = options.logger.child({ component: 'ack-router' });
  }

  /** Handles one Baileys event synchronously (lookups), signalling in the background. */
  handle(event: string, data: unknown): void {
    if (event !== 'messages.update' && event !== 'message-receipt.update') return;
    for (const ack of extractAcks(event, data)) {
      const messageId = this.options.lookup(ack.waMessageId);
      if (messageId === null) continue;
      // Bound to its workflow (ADR 0026 §4): copied to another message's workflow, it is refused there.
      const signal: SendAck = {
        target: sendWorkflowId(messageId),
        status: ack.status,
        at: (this.options.now?.() ?? new Date()).toISOString(),
      };
      void this.signal(messageId, signal);
    }
  }

  private async signal(messageId: string, ack: SendAck, attemptsLeft = 3): Promise<void> {
    try {
      await this.options.client.workflow.getHandle(sendWorkflowId(messageId)).signal(sendAckSignal, ack);
    } catch (err) {
      // A workflow that already ended (a late or repeated receipt, e.g. `played` after `read`) has nothing
      // left to learn: retrying cannot help, and the ACK is not lost.
      if (err instanceof WorkflowNotFoundError) {
        this.logger.debug({ messageId, status: ack.status }, 'ack for a send workflow that has ended');
        return;
      }
      if (attemptsLeft > 1) {
        await new Promise((resolve) => setTimeout(resolve, 1_000).unref());
        return this.signal(messageId, ack, attemptsLeft - 1);
      }
      this.logger.warn({ err, messageId, status: ack.status }, 'cannot route ack to its send workflow');
    }
  }
}
