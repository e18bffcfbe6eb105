import { setMaxListeners } from 'node:events';
import type { Client } from '@temporalio/client';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  type SearchAttributePair,
} from '@temporalio/common';
import type { Logger } from '../common/logger.js';
import type { AlertSink } from '../common/alert-sink.js';
import { withCallSignal } from '../common/with-call-signal.js';
import { grpcCodeOf, isRowLevelStartFailure } from '../common/workflow-start-failure.js';
import {
  DELIVER_EVENT_LEAN_VERSION,
  DELIVER_EVENT_WORKFLOW_TYPE,
  WA_CHAT_JID,
  WA_DELIVERY_STATE,
  WA_EVENT_TYPE,
  type DeliverEventInput,
} from '../workflows/contracts.js';
import type { OutboxRow, OutboxStore } from './outbox-store.js';
import { checkHeldWorkflow } from './squat-check.js';

/**
 * Counts of one drain pass. `due` = due pending rows read; `started + alreadyStarted + failed + postponed`
 * = `due`. `failed` rows were tried and refused; `postponed` rows were not tried (Temporal was down).
 */
export interface DrainResult {
  due: number;
  started: number;
  alreadyStarted: number;
  failed: number;
  postponed: number;
}

/** Options of {@link OutboxRelay}; sizes are counts, durations ms. */
export interface OutboxRelayOptions {
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
  /**
   * Ask Temporal to hand the first workflow task straight back to a worker that shares this client's
   * `NativeConnection` (eager workflow start, ADR 0008). Only when such a worker runs in this
   * process (`wa-lake dev`); the SDK throws for a client on a plain `Connection`. Default false.
   */
  requestEagerStart?: boolean;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  /**
   * Says why Temporal is unreachable (`probeTemporalConnection`: a CA, server name or client certificate mistake,
   * ADR 0028), for the outage's alert and log; the SDK itself reports every TLS mistake as a deadline.
   */
  diagnoseUnreachable?: () => Promise<string | null>;
  now?: () => number;
  random?: () => number;
}

/**
 * Hands outbox rows to Temporal (architecture.md §6): claims due `pending` rows in batches and starts one
 * `deliverEvent` per row with `workflowId = event_id`, `REJECT_DUPLICATE` and the `WaEventType`,
 * `WaChatJid` (when not null) and `WaDeliveryState='pending'` search attributes, at most
 * `concurrency` starts at a time. `WorkflowExecutionAlreadyStartedError` counts as handed over.
 * When Temporal is unreachable the rows stay `pending` with exponential backoff plus jitter
 * (`recordStartFailure`), one `temporal_unreachable` alert per outage (the sink's window dedups
 * further); capture is never blocked. During an outage one row probes Temporal and the rows not
 * tried wait until that probe's retry without counting an attempt (`postponeUntried`, ADR 0008).
 * Drains are serialized: only one runs at a time. The outbox wakes the relay when it commits new
 * pending rows (ADR 0008); `pollIntervalMs` is only the fallback for retries that come due.
 */
export class OutboxRelay {
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly random: () => number;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private isRunning = false;
  private isOutage = false;
  private isDraining = false;
  private isWakePending = false;
  private unsubscribe: (() => void) | null = null;
  /** Aborted by {@link stop}: cancels the workflow starts in flight (their rows stay due, uncounted). */
  private readonly stopping = new AbortController();

  constructor(private readonly options: OutboxRelayOptions) {
    this.logger = options.logger.child({ component: 'outbox-relay' });
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    // Each start in flight listens on the stop signal twice (its call's signal and its race): a bounded number.
    setMaxListeners(2 * options.concurrency + 4, this.stopping.signal);
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
    const total: DrainResult = { due: 0, started: 0, alreadyStarted: 0, failed: 0, postponed: 0 };
    for (;;) {
      const result = await this.drainOnce();
      for (const key of Object.keys(total) as (keyof DrainResult)[]) total[key] += result[key];
      if (result.due === 0 || result.failed + result.postponed > 0) return total;
    }
  }

  /**
   * Starts the send loop: it drains when the outbox commits new pending rows, again at once after a
   * full batch, and otherwise every `pollIntervalMs` (rows whose retry came due).
   */
  start(): void {
    if (this.isRunning) return;
    this.isRunning = true;
    this.unsubscribe = this.options.outbox.onPendingCommitted(() => this.wake());
    this.schedule(0);
  }

  /**
   * Stops the send loop, cancels the workflow starts in flight (their rows stay pending with no attempt
   * counted) and waits for the drain in progress: a stop while Temporal hangs takes no `startTimeoutMs`.
   */
  async stop(): Promise<void> {
    this.isRunning = false;
    this.stopping.abort();
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.queue;
  }

  /** Drains as soon as possible: now when idle, right after the drain in progress otherwise. */
  private wake(): void {
    // During an outage the poll loop's probe decides when to try again, not the capture rate.
    if (!this.isRunning || this.isOutage) return;
    if (this.isDraining) {
      this.isWakePending = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    // A timer, not a direct call: the enqueue that woke us returns to its Baileys callback first.
    this.timer = setTimeout(() => this.runScheduledDrain(), 0);
  }

  private schedule(delayMs: number): void {
    if (!this.isRunning) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.runScheduledDrain(), delayMs);
  }

  private runScheduledDrain(): void {
    this.timer = null;
    this.isDraining = true;
    this.isWakePending = false;
    this.drainOnce().then(
      (result) => {
        this.isDraining = false;
        const isFullBatch = result.due >= this.options.batchSize && result.failed + result.postponed === 0;
        const isWoken = this.isWakePending && !this.isOutage;
        this.schedule(isFullBatch || isWoken ? 0 : this.options.pollIntervalMs);
      },
      (err: unknown) => {
        this.isDraining = false;
        this.logger.error({ err }, 'outbox drain failed');
        this.schedule(this.options.pollIntervalMs);
      }
    );
  }

  private async drainBatch(): Promise<DrainResult> {
    const rows = this.options.outbox.listDue(this.options.batchSize, this.now());
    const result: DrainResult = { due: rows.length, started: 0, alreadyStarted: 0, failed: 0, postponed: 0 };
    if (rows.length === 0) return result;
    const handedOver: string[] = [];
    const untried: string[] = [];
    let probeRetryAtMs: number | null = null;
    let next = 0;
    const startLane = async (): Promise<void> => {
      for (let row = rows[next++]; row !== undefined; row = rows[next++]) {
        if (probeRetryAtMs !== null) {
          untried.push(row.eventId);
          continue;
        }
        if (this.stopping.signal.aborted) break;
        const outcome = await this.startRow(row);
        if (outcome === 'cancelled') continue;
        if (outcome === 'started' || outcome === 'already-started') handedOver.push(row.eventId);
        if (outcome === 'started') result.started++;
        else if (outcome === 'already-started') result.alreadyStarted++;
        else {
          result.failed++;
          const retryAtMs = this.recordStartFailure(row, outcome.error);
          if (outcome.kind === 'failed-down') probeRetryAtMs = Math.max(probeRetryAtMs ?? 0, retryAtMs);
        }
      }
    };
    // During an outage one lane probes Temporal with the oldest due row; if it still fails, the rows
    // not tried wait for the probe's retry: they cost no start attempt and their backoff does not grow.
    const lanes = this.isOutage ? 1 : Math.min(this.options.concurrency, rows.length);
    await Promise.all(Array.from({ length: lanes }, startLane));
    if (handedOver.length > 0) this.options.outbox.markStarted(handedOver, this.now());
    if (untried.length > 0 && probeRetryAtMs !== null) this.options.outbox.postponeUntried(untried, probeRetryAtMs);
    result.postponed = untried.length;
    if (!this.stopping.signal.aborted) await this.reportHealth(probeRetryAtMs !== null, result);
    return result;
  }

  private async startRow(
    row: OutboxRow
  ): Promise<'started' | 'already-started' | 'cancelled' | { kind: 'failed-row' | 'failed-down'; error: string }> {
    const { client, taskQueue, startTimeoutMs, requestEagerStart } = this.options;
    const input: DeliverEventInput = {
      eventId: row.eventId,
      type: row.type,
      chatJid: row.chatJid,
      body: row.body,
      workflowVersion: DELIVER_EVENT_LEAN_VERSION,
    };
    const searchAttributes: SearchAttributePair[] = [
      { key: WA_EVENT_TYPE, value: row.type },
      { key: WA_DELIVERY_STATE, value: 'pending' },
    ];
    if (row.chatJid !== null) searchAttributes.push({ key: WA_CHAT_JID, value: row.chatJid });
    // `isReplacing`: the id is held by a squatter (ADR 0022): end it, whether running or closed, and start.
    const start = (isReplacing: boolean): Promise<unknown> =>
      // The deadline also ends the SDK's own gRPC retries, so no call outlives this method. The SDK adds a
      // listener per call to the signal it is given and never removes it: a signal of this call's own keeps the
      // relay's stop signal from collecting one listener per event.
      withCallSignal(this.stopping.signal, (signal) =>
        client.withAbortSignal(signal, () =>
          client.withDeadline(Date.now() + startTimeoutMs, () =>
            client.workflow.start(DELIVER_EVENT_WORKFLOW_TYPE, {
              taskQueue,
              workflowId: row.eventId,
              args: [input],
              workflowIdReusePolicy: isReplacing
                ? WorkflowIdReusePolicy.ALLOW_DUPLICATE
                : WorkflowIdReusePolicy.REJECT_DUPLICATE,
              ...(isReplacing ? { workflowIdConflictPolicy: WorkflowIdConflictPolicy.TERMINATE_EXISTING } : {}),
              typedSearchAttributes: searchAttributes,
              ...(requestEagerStart === true && !isReplacing ? { requestEagerStart } : {}),
            })
          )
        )
      );
    try {
      const started = start(false);
      // The SDK cancels only a call that is on the wire when the signal aborts; one still encoding its
      // payload then would wait out its deadline. The stop does not wait for it (its result is dropped).
      const aborted = whenAborted(this.stopping.signal);
      try {
        if ((await Promise.race([started, aborted.promise])) === ABORTED) {
          started.catch(() => undefined);
          return 'cancelled';
        }
      } finally {
        aborted.dispose();
      }
      return 'started';
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return this.startUnlessHeld(row, () => start(true));
      // A start cancelled by stop() may or may not have reached Temporal: the row stays due, and the next
      // run's start of the same workflow id answers "already started" if it did.
      if (this.stopping.signal.aborted) return 'cancelled';
      const code = grpcCodeOf(err);
      const isRowLevel = isRowLevelStartFailure(code);
      this.logger.warn(
        { err, eventId: row.eventId, grpcCode: code },
        isRowLevel ? 'temporal refused one workflow start' : 'temporal unreachable'
      );
      return {
        kind: isRowLevel ? 'failed-row' : 'failed-down',
        error: err instanceof Error ? err.message : String(err),
      };
    }
  }

  /**
   * The event's id is already held: `already-started` when the holder is the collector's delivery of this event;
   * otherwise (a forged or foreign workflow squats the id, ADR 0022) one alert, the squatter is
   * terminated and the genuine delivery started in its place (`started`). The lake stores the event once: the
   * squatter's input never ran (the worker refuses what it cannot decrypt) and the ingest is idempotent by id.
   */
  private async startUnlessHeld(
    row: OutboxRow,
    replace: () => Promise<unknown>
  ): Promise<'started' | 'already-started' | { kind: 'failed-row'; error: string }> {
    let check;
    try {
      check = await checkHeldWorkflow(this.options.client, row);
    } catch (err) {
      this.logger.warn({ err, eventId: row.eventId }, 'cannot read the workflow that holds this event id');
      return { kind: 'failed-row', error: err instanceof Error ? err.message : String(err) };
    }
    if (check.kind === 'genuine') return 'already-started';
    this.logger.error(
      { eventId: row.eventId, reason: check.reason },
      'event id held by a workflow the collector did not start'
    );
    await this.options.alertSink
      .send({
        kind: 'workflow_id_squatted',
        severity: 'error',
        message:
          `Workflow ${row.eventId} held the id of an outbox event but was not started by the collector for it ` +
          `(${check.reason}); it is terminated and the genuine delivery started in its place.`,
        details: { eventId: row.eventId, reason: check.reason },
      })
      .catch((err: unknown) => this.logger.error({ err }, 'cannot send alert'));
    try {
      await replace();
      return 'started';
    } catch (err) {
      this.logger.warn({ err, eventId: row.eventId }, 'cannot replace the workflow that squats this event id');
      return { kind: 'failed-row', error: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Counts the failed start on the row and backs it off. @returns the row's next attempt time (ms). */
  private recordStartFailure(row: OutboxRow, error: string): number {
    const { retryBaseDelayMs, retryMaxDelayMs } = this.options;
    const ceilingMs = Math.min(retryMaxDelayMs, retryBaseDelayMs * 2 ** Math.min(row.startAttempts, 30));
    // Jitter in [ceiling/2, ceiling]: spreads retries after an outage without ever retrying at once.
    const delayMs = Math.round(ceilingMs / 2 + (this.random() * ceilingMs) / 2);
    const retryAtMs = this.now() + delayMs;
    this.options.outbox.recordStartFailure(row.eventId, error.slice(0, 1000), retryAtMs);
    return retryAtMs;
  }

  private async reportHealth(isDown: boolean, result: DrainResult): Promise<void> {
    if (isDown && !this.isOutage) {
      this.isOutage = true;
      const likelyCause = (await this.options.diagnoseUnreachable?.().catch(() => null)) ?? null;
      if (likelyCause !== null) this.logger.warn({ likelyCause }, 'temporal unreachable: likely cause found');
      await this.options.alertSink
        .send({
          kind: 'temporal_unreachable',
          severity: 'error',
          message: `The collector cannot start delivery workflows: Temporal is unreachable${
            likelyCause === null ? '' : ` (likely cause: ${likelyCause})`
          }. Events stay in the outbox and are retried.`,
          details: { failed: result.failed, postponed: result.postponed, likelyCause },
        })
        .catch((err: unknown) => this.logger.error({ err }, 'cannot send alert'));
    } else if (!isDown && this.isOutage && result.started + result.alreadyStarted > 0) {
      this.isOutage = false;
      this.logger.info({}, 'temporal reachable again');
    }
  }
}

const ABORTED = Symbol('aborted');

/** `promise` resolves with {@link ABORTED} once `signal` aborts (at once when it has); `dispose` drops the listener. */
function whenAborted(signal: AbortSignal): { promise: Promise<typeof ABORTED>; dispose(): void } {
  let onAbort: () => void = () => undefined;
  const promise = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    if (signal.aborted) resolve(ABORTED);
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}
