import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import type { AlertSink } from '../common/alert-sink.js';
import { createLedgeredAlertSink } from '../common/alert-window-ledger.js';
import type { Logger } from '../common/logger.js';
import { createDataConverter, warnWhenPayloadsInClear } from '../common/temporal-data-converter.js';
import { createWindowedAlertSink } from '../common/windowed-alert-sink.js';
import type { DeadLetterWorkflowInput } from '../workflows/contracts.js';
import { createClosableConnectionInterceptors } from '../common/closable-connection-interceptors.js';
import { createTemporalAlertLedger } from './temporal-alert-ledger.js';
import type { WorkerConfig } from './config.js';
import { createRefusedPayloadAlerter } from './refused-payload-alerter.js';
import { findPrebuiltWorkflowBundle } from './prebuilt-workflow-bundle.js';
import { installRuntimeLoggerOnce } from './runtime-logger.js';
import { resolveWorkflowsPath } from './workflows-path.js';
import { DELIVERY_WORKER_TUNING } from './worker-tuning.js';

/** Options of {@link runWorker}. Everything after `installRuntimeLogger` is an injection point for tests. */
export interface RunWorkerOptions {
  config: WorkerConfig;
  logger: Logger;
  /** Bridge the Temporal Runtime logger to `logger` (once per process). Default false. */
  installRuntimeLogger?: boolean;
  /** Existing worker connection (e.g. `TestWorkflowEnvironment.nativeConnection`); not closed on stop. */
  connection?: NativeConnection;
  /**
   * Existing client for the dead-letter activities (e.g. `env.client`); not closed on stop. It must use
   * the same data converter as `PAYLOAD_ENCRYPTION_KEYS` gives the worker (architecture.md §14).
   */
  client?: Client;
  /**
   * Pre-built bundle instead of `workflowsPath` (the tests share one bundle per run); built with
   * `failureConverterPath`. Without it the worker loads the bundle `npm run build` wrote when it is current, else
   * bundles at start.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /**
   * Alert sink, used as given; default a windowed sink over `ALERT_WINDOW_MS` and `ALERT_WEBHOOK_URL`
   * behind the Temporal alert ledger (one alert per kind and window across workers and restarts).
   */
  alertSink?: AlertSink;
  /** Start input of the dead-letter workflow (tests lower its continue-as-new threshold). */
  deadLetterStartInput?: DeadLetterWorkflowInput;
}

/** A running worker. */
export interface RunningWorker {
  /** Graceful shutdown: stops polling, lets in-flight activities finish within `WORKER_SHUTDOWN_GRACE_TIME_MS`. */
  stop(): Promise<void>;
  /** Settles when the worker has stopped (rejects if it crashed); connections it opened are closed. */
  done: Promise<void>;
  /** The SDK worker's state (`RUNNING`, `STOPPING`, `DRAINING`, …, `FAILED`): the worker's status file. */
  getState(): string;
}

/**
 * Starts the delivery worker (architecture.md §7): `deliverEvent` and `deadLetter` workflows plus the activities,
 * on `TEMPORAL_TASK_QUEUE`, with `shutdownGraceTime` = `WORKER_SHUTDOWN_GRACE_TIME_MS` (validated to
 * exceed `HTTP_TIMEOUT_MS`). The only module that imports both activities and the workflows path.
 *
 * @returns once the worker is created and polling.
 * @throws connection errors, WorkflowsPathNotFoundError, or bundling errors from `Worker.create`.
 */
export async function runWorker(options: RunWorkerOptions): Promise<RunningWorker> {
  const { config, logger } = options;
  const log = logger.child({ component: 'worker' });
  if (options.installRuntimeLogger) installRuntimeLoggerOnce(logger);
  // architecture.md §14: the worker's client (dead-letter signal-with-start) and the worker encrypt alike; a
  // payload no key holder wrote is refused and alerted on (ADR 0022). The sink is built below.
  let alertSink: AlertSink | undefined;
  const dataConverter = createDataConverter(config.PAYLOAD_ENCRYPTION_KEYS, {
    onRefused: createRefusedPayloadAlerter({
      alertSink: () => alertSink ?? { send: () => Promise.resolve(false) },
      logger,
    }),
  });
  warnWhenPayloadsInClear(log, config.PAYLOAD_ENCRYPTION_KEYS);
  const connectionOptions = config.temporal.connectionOptions;
  const connection = options.connection ?? (await NativeConnection.connect({ ...connectionOptions }));
  const clientGuard = createClosableConnectionInterceptors();
  const clientConnection = options.client
    ? undefined
    : await Connection.connect({ ...connectionOptions, interceptors: clientGuard.interceptors });
  const client =
    options.client ?? new Client({ connection: clientConnection, namespace: config.TEMPORAL_NAMESPACE, dataConverter });
  const closeOwned = async (): Promise<void> => {
    clientGuard.markClosing();
    await clientConnection?.close();
    if (!options.connection) await connection.close();
  };
  try {
    alertSink =
      options.alertSink ??
      createLedgeredAlertSink({
        inner: createWindowedAlertSink({
          windowMs: config.ALERT_WINDOW_MS,
          webhookUrl: config.ALERT_WEBHOOK_URL,
          logger,
        }),
        ledger: createTemporalAlertLedger({ client, taskQueue: config.TEMPORAL_TASK_QUEUE }),
        windowMs: config.ALERT_WINDOW_MS,
        logger,
      });
    const activities = createActivities({
      webhookUrl: config.WEBHOOK_URL,
      webhookSecret: config.WHATSAPP_WEBHOOK_SECRET[0] ?? '',
      httpTimeoutMs: config.HTTP_TIMEOUT_MS,
      alertSink,
      client,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      deadLetterStartInput: options.deadLetterStartInput,
      statusWebhookPolicy: {
        allowHttp: config.SEND_WEBHOOK_ALLOW_HTTP,
        allowPrivate: config.SEND_WEBHOOK_ALLOW_PRIVATE,
      },
      sendGate: {
        ratePerMinute: config.SEND_RATE_PER_MINUTE,
        burst: config.SEND_RATE_BURST,
        marketingJitterMaxMs: config.SEND_MARKETING_JITTER_MAX_MS,
        perRecipientIntervalMs: config.SEND_RECIPIENT_INTERVAL_MS,
      },
    });
    const workflowsPath = resolveWorkflowsPath();
    const workflowBundle =
      options.workflowBundle ?? findPrebuiltWorkflowBundle(workflowsPath, dataConverter?.failureConverterPath);
    const worker = await Worker.create({
      connection,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      ...(workflowBundle ? { workflowBundle } : { workflowsPath }),
      activities,
      ...DELIVERY_WORKER_TUNING,
      shutdownGraceTime: config.WORKER_SHUTDOWN_GRACE_TIME_MS,
      dataConverter,
    });
    const done = worker.run().finally(closeOwned);
    log.info(
      {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        namespace: config.TEMPORAL_NAMESPACE,
        ...config.temporal.summary,
        workflowBundle: workflowBundle ? 'prebuilt' : 'bundled at start',
      },
      'worker started'
    );
    return {
      done,
      getState: () => worker.getState(),
      async stop(): Promise<void> {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await done;
        log.info({ taskQueue: config.TEMPORAL_TASK_QUEUE }, 'worker stopped');
      },
    };
  } catch (err) {
    await closeOwned();
    throw err;
  }
}
