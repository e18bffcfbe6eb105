import { dirname, join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Logger } from '../../common/logger.js';
import { stampControlSignal } from '../../common/control-signal-stamp.js';
import type { TemporalConnection } from '../../common/temporal-connection.js';
import { resumeSendingSignal, sendGateWorkflowId, sessionTaskQueue } from '../../workflows/send-contracts.js';
import type { SendSocket } from '../session/send-socket.js';
import { AckRouter } from './ack-router.js';
import { createDispatchActivity } from './dispatch-activity.js';
import type { LinkPreviewer } from './link-preview.js';
import { SentMessageIndex } from './sent-message-index.js';

/** Options of {@link startSessionSendSide}. */
export interface SessionSendSideOptions {
  accountId: string;
  /** What the worker connects with when `connection` is not given; retried with backoff until it answers. */
  temporal: TemporalConnection;
  /** Existing worker connection (tests); not closed on stop. */
  connection?: NativeConnection;
  /** Client for ACK signals and resume. */
  client: Client;
  /** The payload codec of every wa-lake client and worker (architecture.md §14); undefined = clear payloads. */
  dataConverter?: DataConverter;
  /** The outbox path; the sent-message index lives next to it (`sent-messages.sqlite`). */
  outboxPath: string;
  getSocket: () => SendSocket | null;
  /** Link previews of outbound texts; without it no message carries one (`SEND_LINK_PREVIEW=false`). */
  linkPreviewer?: LinkPreviewer;
  logger: Logger;
  /** Test seams (ms). */
  sendTimeoutMs?: number;
  presenceTimeoutMs?: number;
}

/** The collector's send side: dispatch worker, ACK router and re-link resume. */
export interface SessionSendSide {
  /** Feed every Baileys event (before the edge filter; it does not change what enters the lake). */
  onEvent(event: string, data: unknown): void;
  /** Call when the session opens: resumes an account paused by a logout. */
  onSessionOpen(): void;
  stop(): Promise<void>;
}

/**
 * Starts the send side of a collector (architecture.md §12): a second Temporal `Worker` in
 * the collector process on the account's session task queue, running only `dispatchWhatsAppMessage` (it
 * needs the live socket); an {@link AckRouter} that signals ACKs of our messages to their workflow; and a
 * resume signal to the account's gate on every open. If Temporal is down the worker keeps trying to
 * connect in the background; capture is never blocked by it.
 */
export function startSessionSendSide(options: SessionSendSideOptions): SessionSendSide {
  const logger = options.logger.child({ component: 'send-worker', accountId: options.accountId });
  const index = SentMessageIndex.open(join(dirname(options.outboxPath), 'sent-messages.sqlite'));
  const activities = createDispatchActivity({
    getSocket: options.getSocket,
    rememberSent: (waMessageId, messageId) => index.remember(waMessageId, messageId),
    ...(options.linkPreviewer ? { linkPreviewer: options.linkPreviewer } : {}),
    ...(options.sendTimeoutMs !== undefined ? { sendTimeoutMs: options.sendTimeoutMs } : {}),
    ...(options.presenceTimeoutMs !== undefined ? { presenceTimeoutMs: options.presenceTimeoutMs } : {}),
  });
  const router = new AckRouter({ client: options.client, lookup: (id) => index.lookup(id), logger: options.logger });
  let worker: Worker | null = null;
  // Aborted by stop(): ends a connect attempt or a back-off sleep at once, so a collector whose Temporal is
  // down still stops within seconds (ADR 0018; the back-off alone grows to 60 s).
  const stopping = new AbortController();
  const running = (async () => {
    for (let delayMs = 1_000; !stopping.signal.aborted; delayMs = Math.min(delayMs * 2, 60_000)) {
      let connection: NativeConnection | null = null;
      try {
        connection = options.connection ?? (await untilAborted(connectWorker(options), stopping.signal));
        if (connection === null) return;
        worker = await untilAborted(
          Worker.create({
            connection,
            namespace: options.temporal.namespace,
            taskQueue: sessionTaskQueue(options.accountId),
            activities,
            ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
            // A dispatch cut short is retried by its workflow with the same WhatsApp id (architecture.md §12):
            // waiting longer than the container's stop budget for it would only end in a SIGKILL.
            shutdownGraceTime: SHUTDOWN_GRACE_MS,
            shutdownForceTime: SHUTDOWN_FORCE_MS,
          }),
          stopping.signal
        );
        if (worker === null || stopping.signal.aborted) return;
        logger.info({ taskQueue: sessionTaskQueue(options.accountId) }, 'session send worker started');
        await worker.run();
        return;
      } catch (err) {
        if (stopping.signal.aborted) return;
        logger.warn({ err, delayMs }, 'session send worker cannot run; retrying');
        await sleep(delayMs, stopping.signal);
      } finally {
        if (connection && !options.connection) await connection.close().catch(() => undefined);
      }
    }
  })();
  return {
    onEvent: (event, data) => router.handle(event, data),
    onSessionOpen: () => {
      options.client.workflow
        .getHandle(sendGateWorkflowId(options.accountId))
        .signal(resumeSendingSignal, {
          requestedBy: 'session',
          at: new Date().toISOString(),
          ...stampControlSignal(sendGateWorkflowId(options.accountId)),
        })
        .catch(() => undefined); // no gate yet: nothing to resume
    },
    async stop() {
      stopping.abort();
      if (worker?.getState() === 'RUNNING') worker.shutdown();
      await running;
      index.close();
    },
  };
}

/** Grace for a dispatch in flight when the collector stops, then the worker is forced down (ms). */
const SHUTDOWN_GRACE_MS = 1_500;
const SHUTDOWN_FORCE_MS = 3_000;

function connectWorker(options: SessionSendSideOptions): Promise<NativeConnection> {
  return NativeConnection.connect({ ...options.temporal.connectionOptions });
}

/**
 * Resolves with `work`'s value, or with null as soon as `signal` aborts. A native connection or worker that
 * `work` still yields after the abort is closed (the stop no longer waits for it).
 */
async function untilAborted<T extends NativeConnection | Worker>(
  work: Promise<T>,
  signal: AbortSignal
): Promise<T | null> {
  if (signal.aborted) {
    void work.then(release, () => undefined);
    return null;
  }
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<null>((resolve) => {
    onAbort = () => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([work, aborted]);
    if (result === null) void work.then(release, () => undefined);
    return result;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

function release(late: NativeConnection | Worker): void {
  if (late instanceof NativeConnection) void late.close().catch(() => undefined);
}

/** Waits `ms`, or less when `signal` aborts (never rejects). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
