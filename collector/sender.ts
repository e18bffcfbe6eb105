import type { Client } from '@temporalio/client';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdReusePolicy,
  type SearchAttributePair,
} from '@temporalio/common';
import type { Logger } from 'pino';
import type { AlertSink } from '../common/alert-sink.js';
import {
  DELIVER_EVENT_WORKFLOW_TYPE,
  WA_CHAT_JID,
  WA_DELIVERY_STATE,
  WA_EVENT_TYPE,
  type DeliverEventInput,
} from '../workflows/contracts.js';
import type { OutboxRow, OutboxStore } from './outbox-store.js';

/** gRPC status codes that mean "this one row is wrong", not "Temporal is down". */
const ROW_LEVEL_GRPC_CODES = new Set([3 /* INVALID_ARGUMENT */, 8 /* RESOURCE_EXHAUSTED: payload */]);

/** Counts of one drain pass. `claimed` = due pending rows read; the rest sum to at most `claimed`. */
export interface DrainResult {
  claimed: number;
  started: number;
  alreadyStarted: number;
  failed: number;
}

/** Options of {@link OutboxSender}; sizes are counts, durations ms. */
export interface OutboxSenderOptions {
  client: Client;
  outbox: OutboxStore;
  logger: Logger;
  alertSink: AlertSink;
  taskQueue: string;
  batchSize: number;
  concurrency: number;
  pollIntervalMs: number;
  /** Deadline of one `workflow.start` call. */
  startTimeoutMs: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  now?: () => number;
  random?: () => number;
}

function grpcCodeOf(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e != null && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'number') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Hands outbox rows to Temporal (DESIGN §6): claims due `pending` rows in batches and starts one
 * `deliverEvent` per row with `workflowId = event_id`, `REJECT_DUPLICATE` and the `WaEventType`,
 * `WaChatJid` (when not null) and `WaDeliveryState='pending'` search attributes, at most
 * `concurrency` starts at a time. `WorkflowExecutionAlreadyStartedError` counts as handed over.
 * When Temporal is unreachable the rows stay `pending` with exponential backoff plus jitter
 * (`recordAttemptFailure`), one `temporal_unreachable` alert per outage (the sink's window dedups
 * further); capture is never blocked. Drains are serialized: only one runs at a time.
 */
export class OutboxSender {
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly random: () => number;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private isRunning = false;
  private isOutage = false;

  constructor(private readonly options: OutboxSenderOptions) {
    this.logger = options.logger.child({ component: 'sender' });
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** Runs one batch (after any drain in progress). Never throws for delivery failures. */
  drainOnce(): Promise<DrainResult> {
    const run = this.queue.then(() => this.drainBatch());
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Drains until no pending row is due (rows backing off after a failure are not due).
   * @returns the summed counts of every batch.
   */
  async waitUntilIdle(): Promise<DrainResult> {
    const total: DrainResult = { claimed: 0, started: 0, alreadyStarted: 0, failed: 0 };
    for (;;) {
      const result = await this.drainOnce();
      for (const key of Object.keys(total) as (keyof DrainResult)[]) total[key] += result[key];
      if (result.claimed === 0 || result.failed > 0) return total;
    }
  }

  /** Starts the poll loop: a full batch drains again at once, otherwise after `pollIntervalMs`. */
  start(): void {
    if (this.isRunning) return;
    this.isRunning = true;
    this.schedule(0);
  }

  /** Stops the poll loop and waits for the drain in progress. */
  async stop(): Promise<void> {
    this.isRunning = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.queue;
  }

  private schedule(delayMs: number): void {
    if (!this.isRunning) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.drainOnce().then(
        (result) =>
          this.schedule(
            result.claimed >= this.options.batchSize && result.failed === 0 ? 0 : this.options.pollIntervalMs
          ),
        (err: unknown) => {
          this.logger.error({ err }, 'outbox drain failed');
          this.schedule(this.options.pollIntervalMs);
        }
      );
    }, delayMs);
  }

  private async drainBatch(): Promise<DrainResult> {
    const rows = this.options.outbox.claimDue(this.options.batchSize, this.now());
    const result: DrainResult = { claimed: rows.length, started: 0, alreadyStarted: 0, failed: 0 };
    if (rows.length === 0) return result;
    const handedOver: string[] = [];
    let isDown = false;
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let row = rows[next++]; row !== undefined; row = rows[next++]) {
        if (isDown) {
          this.deferRow(row, 'not attempted: Temporal unreachable');
          result.failed++;
          continue;
        }
        const outcome = await this.startRow(row);
        if (outcome === 'failed-down') isDown = true;
        if (outcome === 'started' || outcome === 'already-started') handedOver.push(row.eventId);
        if (outcome === 'started') result.started++;
        else if (outcome === 'already-started') result.alreadyStarted++;
        else result.failed++;
      }
    };
    // During an outage one row probes Temporal first; the rest are deferred if it still fails.
    const workers = this.isOutage ? 1 : Math.min(this.options.concurrency, rows.length);
    await Promise.all(Array.from({ length: workers }, worker));
    if (handedOver.length > 0) this.options.outbox.markStarted(handedOver, this.now());
    await this.reportHealth(isDown, result);
    return result;
  }

  private async startRow(row: OutboxRow): Promise<'started' | 'already-started' | 'failed-row' | 'failed-down'> {
    const { client, taskQueue, startTimeoutMs } = this.options;
    const input: DeliverEventInput = { eventId: row.eventId, type: row.type, chatJid: row.chatJid, body: row.body };
    const searchAttributes: SearchAttributePair[] = [
      { key: WA_EVENT_TYPE, value: row.type },
      { key: WA_DELIVERY_STATE, value: 'pending' },
    ];
    if (row.chatJid !== null) searchAttributes.push({ key: WA_CHAT_JID, value: row.chatJid });
    try {
      // The deadline also ends the SDK's own gRPC retries, so no call outlives this method.
      await client.withDeadline(Date.now() + startTimeoutMs, () =>
        client.workflow.start(DELIVER_EVENT_WORKFLOW_TYPE, {
          taskQueue,
          workflowId: row.eventId,
          args: [input],
          workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
          typedSearchAttributes: searchAttributes,
        })
      );
      return 'started';
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already-started';
      const code = grpcCodeOf(err);
      const isRowLevel = code !== undefined && ROW_LEVEL_GRPC_CODES.has(code);
      this.deferRow(row, err instanceof Error ? err.message : String(err));
      this.logger.warn(
        { err, eventId: row.eventId, grpcCode: code },
        isRowLevel ? 'temporal refused one workflow start' : 'temporal unreachable'
      );
      return isRowLevel ? 'failed-row' : 'failed-down';
    }
  }

  private deferRow(row: OutboxRow, error: string): void {
    const { retryBaseDelayMs, retryMaxDelayMs } = this.options;
    const ceilingMs = Math.min(retryMaxDelayMs, retryBaseDelayMs * 2 ** Math.min(row.attempts, 30));
    // Jitter in [ceiling/2, ceiling]: spreads retries after an outage without ever retrying at once.
    const delayMs = Math.round(ceilingMs / 2 + (this.random() * ceilingMs) / 2);
    this.options.outbox.recordAttemptFailure(row.eventId, error.slice(0, 1000), this.now() + delayMs);
  }

  private async reportHealth(isDown: boolean, result: DrainResult): Promise<void> {
    if (isDown && !this.isOutage) {
      this.isOutage = true;
      await this.options.alertSink
        .send({
          kind: 'temporal_unreachable',
          severity: 'error',
          message:
            'The collector cannot start delivery workflows: Temporal is unreachable. Events stay in the outbox and are retried.',
          details: { deferred: result.failed },
        })
        .catch((err: unknown) => this.logger.error({ err }, 'cannot send alert'));
    } else if (!isDown && this.isOutage && result.started + result.alreadyStarted > 0) {
      this.isOutage = false;
      this.logger.info({}, 'temporal reachable again');
    }
  }
}
