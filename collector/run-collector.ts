import { dirname } from 'node:path';
import type { Client } from '@temporalio/client';
import { createLedgeredAlertSink } from '../common/alert-window-ledger.js';
import type { AlertSink } from '../common/alert-sink.js';
import type { Logger } from '../common/logger.js';
import { warnRenamedEnvKeys } from '../common/renamed-env-keys.js';
import { createDataConverter } from '../common/temporal-data-converter.js';
import { makeDirectory } from '../common/make-directory.js';
import { probeTemporalConnection } from '../common/temporal-tls-probe.js';
import { TeardownStack } from '../common/teardown-stack.js';
import { AlertStateStore } from './alert-state-store.js';
import { startLiveBackfill } from './backfill/live-backfill.js';
import { CaptureRecorder } from './capture/capture-recorder.js';
import { CoverageBeats } from './coverage-beats.js';
import { HistoryImportReporter } from './history-import-reporter.js';
import type { HistoryImportStatus } from './history-progress.js';
import { replayCapture, type ReplaySummary } from './capture/replay-capture.js';
import type { CollectorConfig } from './config.js';
import { readStoredAccount } from './session/stored-account.js';
import { EventPipeline } from './event-pipeline.js';
import { Heartbeat } from './heartbeat.js';
import { acquireInstanceLock } from './instance-lock.js';
import { narrowPrivateFiles } from './narrow-private-files.js';
import { OutboxMonitor } from './outbox-monitor.js';
import { OutboxStore } from './outbox-store.js';
import { OutboxRelay } from './outbox-relay.js';
import { asSendSocket } from './session/send-socket.js';
import { createLinkPreviewer } from './send/link-preview.js';
import { startSessionSendSide, type SessionSendSide, type SessionSendSideOptions } from './send/session-send-worker.js';
import { createBaileysSocketFactory, type SocketFactory } from './session/baileys-socket.js';
import { normalizePairPhone } from './session/login-prompt.js';
import { WhatsAppSession, type SessionStopReason } from './session/whatsapp-session.js';

/** Where events come from: the live WhatsApp session, or a capture file / trail folder. */
export type CollectorSource = { kind: 'live'; pairPhone?: string | undefined } | { kind: 'replay'; path: string };

/** Options of {@link runCollector}. */
export interface RunCollectorOptions {
  config: CollectorConfig;
  logger: Logger;
  alertSink: AlertSink;
  /** Null: nothing is handed to Temporal (rows stay pending for the next run). */
  temporalClient: Client | null;
  /**
   * True only when `temporalClient` runs on the `NativeConnection` of a worker in this process polling
   * `TEMPORAL_TASK_QUEUE` (`wa-lake dev`): the outbox relay then requests eager workflow start. Default false.
   */
  requestEagerStart?: boolean;
  source: CollectorSource;
  /** `--record FILE`: capture every received event (minus `creds.update`). Live only. */
  recordPath?: string | undefined;
  /** Test seam: replaces the Baileys socket factory (only WhatsApp may be faked). */
  socketFactory?: SocketFactory;
  /** Outbound send (architecture.md §12): run the session send worker and ACK router for this account. Live only. */
  send?: Pick<SessionSendSideOptions, 'accountId' | 'connection' | 'sendTimeoutMs' | 'presenceTimeoutMs'>;
}

/** A running collector. */
export interface CollectorHandle {
  outbox: OutboxStore;
  /** Replay only: resolves after the capture was read and no pending row is due any more. */
  replayDone?: Promise<ReplaySummary>;
  /** Live only: resolves when the session ends for good (`logged_out`, `forbidden`, `stopped`). */
  sessionStopped?: Promise<SessionStopReason>;
  /** Stops everything (session or replay, outbox relay, timers), closes the outbox, releases the lock. Idempotent. */
  stop(): Promise<void>;
}

/** Thrown by {@link runCollector} when `--pair-phone` is not an international number. */
export class InvalidPairPhoneError extends Error {
  override readonly name = 'InvalidPairPhoneError';
  constructor() {
    super('--pair-phone must be an international number with country code, digits only (8–15 digits)');
  }
}

/**
 * Wires one collector (architecture.md §2, §5, §6, §10): instance lock → outbox → pipeline → outbox relay (when a
 * Temporal client is given) → outbox monitor, pruning timer, heartbeat → live session (optionally
 * recording) or capture replay. Live and replay use the same `EventPipeline`.
 *
 * @throws InstanceLockedError when another collector holds the auth dir (live) or the outbox.
 * @throws OutboxOpenError when the outbox cannot be opened; InvalidPairPhoneError for a bad `pairPhone`.
 */
export async function runCollector(options: RunCollectorOptions): Promise<CollectorHandle> {
  const { config, source } = options;
  const logger = options.logger.child({ component: 'collector' });
  warnRenamedEnvKeys(logger, config.renamedEnvKeys);
  const pairPhone =
    source.kind === 'live' && source.pairPhone !== undefined ? normalizePairPhone(source.pairPhone) : undefined;
  if (pairPhone === null) throw new InvalidPairPhoneError();
  makeDirectory(dirname(config.OUTBOX_PATH));
  // A replay only needs the outbox; it may run next to a live collector that uses another outbox.
  const lock = acquireInstanceLock({
    authDir: source.kind === 'live' ? config.AUTH_DIR : undefined,
    outboxPath: config.OUTBOX_PATH,
  });
  const stack = new TeardownStack({ logger });
  stack.defer('instance-lock', () => lock.release());
  try {
    narrowPrivateFiles({ ...options.config, recordPath: options.recordPath }, logger);
  } catch (err) {
    lock.release();
    throw err;
  }
  const stopAll = (): Promise<void> => stack.disposeAsync();
  try {
    const outbox = OutboxStore.open({ path: config.OUTBOX_PATH });
    stack.defer('outbox', () => outbox.close());
    const alertState = AlertStateStore.open({ path: config.OUTBOX_PATH });
    stack.defer('alert-state', () => alertState.close());
    // Every alert of this collector goes through the ledger in the outbox file, so a
    // restart inside a window (e.g. during one Temporal outage) does not alert again.
    options = {
      ...options,
      alertSink: createLedgeredAlertSink({
        inner: options.alertSink,
        ledger: alertState,
        windowMs: config.ALERT_WINDOW_MS,
        logger: options.logger,
      }),
    };
    // The live step sets it; the pipeline and the send side read it (the account's own JIDs, the open socket).
    const current: SessionHolder = { session: null };
    // A replay has no session: the account is the one the auth folder logged in (same event ids as live).
    const stored = source.kind === 'replay' ? readStoredAccount(config.AUTH_DIR) : null;
    if (source.kind === 'replay' && stored?.phoneJid == null)
      logger.warn({ authDir: config.AUTH_DIR }, 'replay without a logged-in account: own reactions get no reactor');
    const pipeline = new EventPipeline({
      outbox,
      logger: options.logger,
      getSelfJid: () => current.session?.getSelfJid() ?? stored?.phoneJid ?? null,
      getSelfLid: () => current.session?.getSelfLid() ?? stored?.lid ?? null,
      withFirstCollectorEventIds: source.kind === 'replay',
      mode: source.kind,
      limits: {
        bodyLimitBytes: config.OUTBOX_BODY_LIMIT_BYTES,
        inlineBinaryLimitBytes: config.OUTBOX_INLINE_BINARY_LIMIT_BYTES,
      },
    });
    const relay = startOutboxRelay(options, outbox);
    if (relay) stack.defer('outbox-relay', () => relay.stop());
    startHousekeeping(options, outbox, alertState, stack);
    const handle: CollectorHandle = { outbox, stop: stopAll };
    if (source.kind === 'replay') {
      startReplay({ options, path: source.path, outbox, pipeline, relay, stack, logger, handle });
      return handle;
    }
    startLiveSession({ options, outbox, pipeline, stack, logger, handle, current, pairPhone });
    return handle;
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** Where the live step keeps its session for the parts built before it (pipeline, send side). */
interface SessionHolder {
  session: WhatsAppSession | null;
}

/** What the two sources' steps share: the collector's outbox, pipeline and teardown, and the handle to fill. */
interface SourceParts {
  options: RunCollectorOptions;
  outbox: OutboxStore;
  pipeline: EventPipeline;
  stack: TeardownStack;
  logger: Logger;
  handle: CollectorHandle;
}

/** Replays a capture through the pipeline; the teardown aborts the reader and waits for it first. */
function startReplay(parts: SourceParts & { path: string; relay: OutboxRelay | null }): void {
  const { options, outbox, pipeline, relay, stack, logger, handle } = parts;
  const abort = new AbortController();
  const replayStartedAt = new Date();
  // A replayed push is followed as a live one is: the same log records and status file (ADR 0016).
  const history = new HistoryImportReporter({ logger });
  const heartbeat = startHeartbeat(
    options,
    outbox,
    stack,
    () => ({ state: 'replay', since: replayStartedAt }),
    'replay',
    () => history.status()
  );
  history.attach(() => heartbeat.refresh());
  stack.defer('status-refresh', () => history.stop());
  const metered: Pick<EventPipeline, 'handle'> = {
    handle: (event, data, capturedAt) => {
      const outcome = pipeline.handle(event, data, capturedAt);
      history.onEvent(event, data, outcome.kept);
      return outcome;
    },
  };
  const replayDone = runReplay(parts.path, metered, relay, logger, abort.signal);
  handle.replayDone = replayDone;
  // Unwinds as: abort → wait for the reader to stop → heartbeat → outbox relay → outbox.
  stack.defer('replay', () =>
    replayDone.then(
      () => undefined,
      () => undefined
    )
  );
  stack.defer('replay-abort', () => abort.abort());
}

/**
 * The live source: the WhatsApp session and what runs beside it (capture recorder, send side, coverage beats,
 * history backfill, heartbeat), each deferred on the teardown so that it stops before what it uses.
 */
function startLiveSession(parts: SourceParts & { current: SessionHolder; pairPhone: string | undefined }): void {
  const { options, outbox, pipeline, stack, logger, handle, current, pairPhone } = parts;
  const { config } = options;
  const recorder = options.recordPath ? CaptureRecorder.open(options.recordPath, options.logger) : null;
  if (recorder) stack.defer('capture-recorder', () => recorder.close());
  const sendSide = startSendSide(options, () => asSendSocket(current.session?.getOpenSocket() ?? null));
  if (sendSide) stack.defer('send-side', () => sendSide.stop());
  const coverage = new CoverageBeats({
    pipeline,
    logger: options.logger,
    getSelfJid: () => current.session?.getSelfJid() ?? null,
    getSelfLid: () => current.session?.getSelfLid() ?? null,
    intervalMs: config.COVERAGE_HEARTBEAT_INTERVAL_MS,
  });
  // Runs before the outbox closes (the stack unwinds in reverse): the close beat is stored.
  stack.defer('coverage-beats', () => coverage.onClosed('stopped'));
  const backfill = startLiveBackfill({
    config,
    pipeline,
    logger: options.logger,
    getSocket: () => current.session?.getOpenSocket() ?? null,
    getSelfJid: () => current.session?.getSelfJid() ?? null,
  });
  stack.defer('history-backfill', () => backfill.stop());
  let closedAtMs: number | null = null;
  const history = new HistoryImportReporter({ logger });
  const liveSession = new WhatsAppSession({
    socketFactory:
      options.socketFactory ??
      createBaileysSocketFactory({
        authDir: config.AUTH_DIR,
        logger: options.logger,
        baileysLogLevel: config.BAILEYS_LOG_LEVEL,
      }),
    onEvent: (event, data, capturedAt) => {
      recorder?.record(event, data, capturedAt);
      routeAcks(sendSide, event, data, logger);
      const outcome = pipeline.handle(event, data, capturedAt);
      backfill.onStored(event, data);
      history.onEvent(event, data, outcome.kept);
    },
    onStateChange: (state) => {
      if (state === 'open') sendSide?.onSessionOpen();
      else {
        if (coverage.isObserving()) closedAtMs = Date.now();
        coverage.onClosed(state);
      }
    },
    onGroupsCaptured: (groupJids) => {
      coverage.onOpen(groupJids);
      const gapMs = closedAtMs === null ? 0 : Date.now() - closedAtMs;
      if (closedAtMs !== null && config.BACKFILL_AFTER_GAP_MS > 0 && gapMs >= config.BACKFILL_AFTER_GAP_MS)
        backfill.requestAfterGap(groupJids ?? [], closedAtMs);
      closedAtMs = null;
    },
    logger: options.logger,
    alertSink: options.alertSink,
    authDir: config.AUTH_DIR,
    ...(pairPhone !== undefined ? { pairPhone } : {}),
    reconnect: {
      baseDelayMs: config.SESSION_RECONNECT_BASE_DELAY_MS,
      maxDelayMs: config.SESSION_RECONNECT_MAX_DELAY_MS,
      windowMs: config.SESSION_RECONNECT_WINDOW_MS,
    },
    downAlertMs: config.SESSION_DOWN_ALERT_MS,
    replacedAlertCount: config.SESSION_REPLACED_ALERT_COUNT,
  });
  current.session = liveSession;
  const heartbeat = startHeartbeat(
    options,
    outbox,
    stack,
    () => ({ state: liveSession.state, since: liveSession.stateSince }),
    'live',
    () => history.status()
  );
  history.attach(() => heartbeat.refresh());
  stack.defer('status-refresh', () => history.stop());
  stack.defer('whatsapp-session', () => liveSession.stop());
  liveSession.start();
  handle.sessionStopped = liveSession.stopped;
}

function startSendSide(
  options: RunCollectorOptions,
  getSocket: SessionSendSideOptions['getSocket']
): SessionSendSide | null {
  if (!options.send || options.temporalClient === null) return null;
  return startSessionSendSide({
    ...options.send,
    temporal: options.config.temporal,
    client: options.temporalClient,
    dataConverter: createDataConverter(options.config.PAYLOAD_ENCRYPTION_KEYS),
    outboxPath: options.config.OUTBOX_PATH,
    getSocket,
    ...(options.config.SEND_LINK_PREVIEW
      ? { linkPreviewer: createLinkPreviewer({ allowPrivate: options.config.SEND_LINK_PREVIEW_ALLOW_PRIVATE }) }
      : {}),
    logger: options.logger,
  });
}

// ACK routing must never cost an event its outbox write, so its failures are logged and swallowed.
function routeAcks(sendSide: SessionSendSide | null, event: string, data: unknown, logger: Logger): void {
  try {
    sendSide?.onEvent(event, data);
  } catch (err) {
    logger.error({ err, event }, 'cannot route send acks');
  }
}

/** Mark holding the outbox dead-row count the monitor has already reported. */
const DEAD_COUNT_REPORTED_MARK = 'outbox_dead_reported';

function startOutboxRelay(options: RunCollectorOptions, outbox: OutboxStore): OutboxRelay | null {
  if (options.temporalClient === null) return null;
  const { config } = options;
  const relay = new OutboxRelay({
    client: options.temporalClient,
    outbox,
    logger: options.logger,
    alertSink: options.alertSink,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    batchSize: config.OUTBOX_RELAY_BATCH_SIZE,
    concurrency: config.OUTBOX_RELAY_CONCURRENCY,
    pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
    startTimeoutMs: config.OUTBOX_RELAY_START_TIMEOUT_MS,
    requestEagerStart: options.requestEagerStart ?? false,
    retryBaseDelayMs: config.OUTBOX_RELAY_RETRY_BASE_DELAY_MS,
    retryMaxDelayMs: config.OUTBOX_RELAY_RETRY_MAX_DELAY_MS,
    diagnoseUnreachable: () => probeTemporalConnection(config.temporal),
  });
  relay.start();
  return relay;
}

function startHousekeeping(
  options: RunCollectorOptions,
  outbox: OutboxStore,
  alertState: AlertStateStore,
  stack: TeardownStack
): void {
  const { config, logger } = options;
  const monitor = new OutboxMonitor({
    outbox,
    alertSink: options.alertSink,
    logger,
    pendingThreshold: config.OUTBOX_PENDING_ALERT_THRESHOLD,
    oldestPendingAgeThresholdMs: config.OUTBOX_OLDEST_PENDING_ALERT_MS,
    windowMs: config.ALERT_WINDOW_MS,
    deadCountMark: {
      read: () => alertState.readMark(DEAD_COUNT_REPORTED_MARK),
      write: (value) => alertState.writeMark(DEAD_COUNT_REPORTED_MARK, value),
    },
  });
  monitor.start(config.OUTBOX_MONITOR_INTERVAL_MS);
  stack.defer('outbox-monitor', () => monitor.stop());
  const prune = (): void => {
    const pruned = outbox.pruneStarted(Date.now() - config.OUTBOX_RETENTION_DAYS * 24 * 60 * 60 * 1000);
    if (pruned > 0) logger.info({ component: 'collector', pruned }, 'outbox rows pruned after the retention period');
  };
  prune();
  const pruneTimer = setInterval(prune, config.OUTBOX_PRUNE_INTERVAL_MS);
  pruneTimer.unref();
  stack.defer('outbox-prune', () => clearInterval(pruneTimer));
}

function startHeartbeat(
  options: RunCollectorOptions,
  outbox: OutboxStore,
  stack: TeardownStack,
  getState: () => { state: string; since: Date },
  mode: 'live' | 'replay',
  getHistoryImport: () => HistoryImportStatus | null = () => null
): Heartbeat {
  const heartbeat = new Heartbeat({
    logger: options.logger,
    statusPath: options.config.COLLECTOR_STATUS_PATH,
    intervalMs: options.config.HEARTBEAT_INTERVAL_MS,
    getSnapshot: () => {
      const oldest = outbox.oldestPendingCreatedAt();
      const { state, since } = getState();
      return {
        mode,
        sessionState: state,
        sessionStateSince: since.toISOString(),
        outbox: outbox.countByState(),
        oldestPendingAgeMs: oldest === null ? null : Date.now() - oldest,
        historyImport: getHistoryImport(),
      };
    },
  });
  heartbeat.start();
  // A session state change is written at once, not at the next beat: `wa-lake status` and the container
  // healthcheck must not report a connection that dropped up to a minute ago.
  let lastState = getState().state;
  const stateWatch = setInterval(() => {
    const { state } = getState();
    if (state === lastState) return;
    lastState = state;
    heartbeat.beat();
  }, 1_000);
  stateWatch.unref();
  // Runs before the outbox closes (the stack unwinds in reverse), so the last status has real counts.
  stack.defer('heartbeat', () => {
    clearInterval(stateWatch);
    heartbeat.stop();
  });
  return heartbeat;
}

async function runReplay(
  path: string,
  pipeline: Pick<EventPipeline, 'handle'>,
  relay: OutboxRelay | null,
  logger: Logger,
  signal: AbortSignal
): Promise<ReplaySummary> {
  logger.info({ path }, 'replay started');
  const summary = await replayCapture({
    path,
    pipeline,
    signal,
    // Rate, share done and ETA for the operator; the reader measures bytes and time.
    onProgress: (progress) =>
      logger.info(
        {
          ...progress,
          percent: progress.totalBytes > 0 ? Math.round((100 * progress.bytesRead) / progress.totalBytes) : null,
          linesPerSecond: progress.elapsedMs > 0 ? Math.round((1000 * progress.lines) / progress.elapsedMs) : null,
          etaSeconds: progress.etaMs === null ? null : Math.ceil(progress.etaMs / 1000),
        },
        'replay progress'
      ),
    onMalformedLine: (line) => logger.warn(line, 'malformed capture line skipped'),
  });
  if (relay && !signal.aborted) await relay.waitUntilIdle();
  const { eventIds, ...counts } = summary;
  logger.info({ ...counts, distinctEventIds: eventIds.size }, 'replay finished');
  return summary;
}
