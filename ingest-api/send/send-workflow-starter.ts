import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Logger } from '../../common/logger.js';
import { grpcCodeOf, isRowLevelStartFailure } from '../../common/workflow-start-failure.js';
import {
  SEND_MESSAGE_WORKFLOW_TYPE,
  WA_SEND_STATE,
  sendWorkflowId,
  type SendMessageInput,
} from '../../workflows/send-contracts.js';
import type { OutboundMessage, OutboundMessagesRepository } from '../../lake/index.js';

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
  /** `host:port` of Temporal, for the readiness sentence. */
  address?: string;
  /**
   * Says why Temporal is unreachable (`probeTemporalConnection`, ADR 0028): the SDK reports every TLS mistake
   * (CA, server name, client certificate) as a deadline.
   */
  diagnoseUnreachable?: () => Promise<string | null>;
}

/** Whether the starter reaches Temporal (`GET /readyz`); `reason` names the address and the likely cause. */
export type TemporalReadiness = { readonly isReady: true } | { readonly isReady: false; readonly reason: string };

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
    // Only when true: inputs of keys without a webhook stay exactly as before (ADR 0011).
    ...(message.hasStatusWebhook ? { statusWebhook: true } : {}),
  };
}

type StartSource = 'accepted' | 'swept';
interface WaitingStart {
  message: OutboundMessage;
  settle: (isStarted: boolean) => void;
}

/** Starts in flight at once (immediate and swept together); more wait in memory for a slot. */
export const MAX_CONCURRENT_STARTS = 16;
/** Batches one sweep goes through at most (a row that starts but cannot be marked would be listed again). */
const MAX_BATCHES_PER_SWEEP = 50;

/**
 * Starts `sendMessage` (workflowId `send-<message_id>`) for committed intents (architecture.md §12: "accepted
 * means never lost"). The request handler calls {@link startSoon} after COMMIT without waiting, so the
 * answer never depends on Temporal; the sweeper retries every row whose start was not confirmed, so a
 * request accepted while Temporal was down starts when it is back. `WorkflowExecutionAlreadyStartedError`
 * counts as started (the workflow id is the idempotency barrier).
 *
 * At most {@link MAX_CONCURRENT_STARTS} starts run at once and each one's deadline counts from when it
 * runs: a burst of accepts queues here instead of sending Temporal hundreds of
 * concurrent starts that all miss their deadline and leave the backlog to the sweeper. A message queued or
 * in flight is never started twice by this process; the sweeper sweeps again at once while it finds full
 * batches and they start. Just-accepted messages take the next free slot before swept ones, so draining a
 * backlog (Temporal was down) does not delay the start of new requests.
 */
export class SendWorkflowStarter {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;
  /** Starts waiting for a slot: just accepted (taken first), and found by the sweeper. */
  private readonly waiting: Record<StartSource, WaitingStart[]> = { accepted: [], swept: [] };
  /** Queued or running starts by message id (what `startSoon` and the sweeper share). */
  private readonly attempts = new Map<string, Promise<boolean>>();
  private running = 0;
  private readonly logger: Logger;
  /** Set while starts fail for want of Temporal (ADR 0028); the likely cause once the probe has answered. */
  private unreachable: { likelyCause: string | null } | null = null;

  constructor(private readonly options: SendWorkflowStarterOptions) {
    this.logger = options.logger.child({ component: 'send-starter' });
  }

  /** Attempts the start in the background; failures are left to the sweeper. */
  startSoon(message: OutboundMessage): void {
    void this.enqueue(message, 'accepted');
  }

  /** Queues one start (or joins the queued one). @returns whether the workflow exists afterwards; never rejects. */
  private enqueue(message: OutboundMessage, source: StartSource): Promise<boolean> {
    const queued = this.attempts.get(message.id);
    if (queued) return queued;
    const attempt = new Promise<boolean>((settle) => this.waiting[source].push({ message, settle }));
    this.attempts.set(message.id, attempt);
    void attempt.finally(() => this.attempts.delete(message.id));
    this.pump();
    return attempt;
  }

  private pump(): void {
    while (this.running < MAX_CONCURRENT_STARTS) {
      const next = this.waiting.accepted.shift() ?? this.waiting.swept.shift();
      if (!next) return;
      this.running += 1;
      void this.start(next.message).then((isStarted) => {
        this.running -= 1;
        next.settle(isStarted);
        this.pump();
      });
    }
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
        if (!isRowLevelStartFailure(grpcCodeOf(err))) this.markUnreachable();
        return false;
      }
    }
    this.markReachable();
    try {
      await this.options.repository.markWorkflowStarted(message.id);
    } catch (err) {
      this.logger.warn({ err, messageId: message.id }, 'cannot record send workflow start; the sweeper retries');
    }
    return true;
  }

  /**
   * `GET /readyz`'s Temporal half: not ready while starts fail for want of Temporal, with the likely cause
   * (a TLS mistake is named, not reported as a deadline); ready again after the next start or sweep that reaches it.
   */
  readiness(): TemporalReadiness {
    if (this.unreachable === null) return { isReady: true };
    const at = this.options.address ? ` at ${this.options.address}` : '';
    const cause = this.unreachable.likelyCause;
    return {
      isReady: false,
      reason: `cannot reach Temporal${at} to start sends${cause === null ? '' : `: ${cause}`}`,
    };
  }

  private markUnreachable(): void {
    if (this.unreachable !== null) return;
    const state: { likelyCause: string | null } = { likelyCause: null };
    this.unreachable = state;
    void (this.options.diagnoseUnreachable?.() ?? Promise.resolve(null))
      .catch(() => null)
      .then((likelyCause) => {
        state.likelyCause = likelyCause;
        this.logger.warn({ likelyCause }, 'cannot reach Temporal to start sends; /readyz answers 503 until it can');
      });
  }

  private markReachable(): void {
    if (this.unreachable === null) return;
    this.unreachable = null;
    this.logger.info({}, 'Temporal reachable again for sends');
  }

  /** While unreachable and nothing is left to start, asks Temporal directly whether it answers again. */
  private async checkReachable(): Promise<void> {
    const { client, startTimeoutMs } = this.options;
    try {
      await client.withDeadline(Date.now() + startTimeoutMs, () => client.workflowService.getSystemInfo({}));
      this.markReachable();
    } catch {
      // still unreachable: readiness keeps saying so
    }
  }

  /**
   * One sweep: starts unstarted rows older than the start timeout, `sweepBatchSize` at a time, and goes on
   * while a batch was full and all of it started. @returns rows started.
   */
  sweepOnce(): Promise<number> {
    this.sweeping ??= (async () => {
      let started = 0;
      try {
        for (let batch = 0; batch < MAX_BATCHES_PER_SWEEP; batch += 1) {
          const olderThan = new Date(Date.now() - this.options.startTimeoutMs);
          const rows = await this.options.repository.listUnstarted(this.options.sweepBatchSize, olderThan);
          if (rows.length === 0 && this.unreachable !== null) await this.checkReachable();
          const outcomes = await Promise.all(rows.map((row) => this.enqueue(row, 'swept')));
          started += outcomes.filter(Boolean).length;
          if (rows.length < this.options.sweepBatchSize || outcomes.includes(false)) break;
        }
      } catch (err) {
        this.logger.warn({ err }, 'send sweep failed');
      } finally {
        this.sweeping = null;
      }
      if (started > 0) this.logger.info({ started }, 'send workflows started by the sweeper');
      return started;
    })();
    return this.sweeping;
  }

  /** Starts the periodic sweeper. */
  startSweeper(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweepOnce(), this.options.sweepIntervalMs);
    this.timer.unref();
  }

  /**
   * Stops the sweeper, drops starts still waiting for a slot (their rows stay unstarted: the next sweep,
   * here or in the next process, starts them) and waits for running starts and a running sweep.
   */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const dropped of [...this.waiting.accepted.splice(0), ...this.waiting.swept.splice(0)]) dropped.settle(false);
    await Promise.allSettled([...this.attempts.values(), this.sweeping]);
  }
}
