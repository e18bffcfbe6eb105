import { resolve } from 'node:path';
import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Logger } from '../../common/logger.js';
import {
  type CollectorHandle,
  describeUnreadableCapture,
  runCollector,
  loadCollectorConfig,
  type SocketFactory,
} from '../../collector/index.js';
import { startEmbeddedPostgres } from '../../dev-stack/embedded-postgres.js';
import { INGEST_PATH } from '../../common/ingest-body.js';
import { resolveTemporalCliPath } from '../../dev-stack/temporal-binaries.js';
import { startTemporalDevServer } from '../../dev-stack/temporal-dev-server.js';
import { findFreePort } from '../../dev-stack/tcp-ports.js';
import { createDataConverter } from '../../common/temporal-data-converter.js';
import { formatMode } from '../../common/private-files.js';
import { createWindowedAlertSink } from '../../common/windowed-alert-sink.js';
import { loadIngestConfig, startIngestServer } from '../../ingest-api/index.js';
import { runMigrations } from '../../lake/index.js';
import { installRuntimeLoggerOnce, loadWorkerConfig, runWorker } from '../../worker/index.js';
import { TeardownStack } from '../../common/teardown-stack.js';
import { writePgpassFile } from './pgpass-file.js';
import { startDevCodecServer } from './dev-codec-server.js';
import {
  loadOrCreatePayloadEncryptionKeys,
  loadOrCreateErasureKey,
  loadOrCreatePostgresPassword,
  loadOrCreateWebhookSecret,
  dataDirLayout,
  prepareDataDir,
  type DataDirLayout,
  writeDevStackFile,
} from './data-dir.js';
import { assertPortsFree, hasEarlierStack, lockDataDir, stopOrphanPostgres, stopOrphanTemporal } from './preflight.js';

/** How long one component may take to stop before the next one is stopped anyway, so Ctrl-C always finishes. */
export const COMPONENT_STOP_TIMEOUT_MS = 15_000;

type Env = Readonly<Record<string, string | undefined>>;

/** Where the collector's events come from. `none` starts no collector (delivery side only). */
export type CollectorSource =
  { kind: 'live'; pairPhone?: string } | { kind: 'replay'; path: string } | { kind: 'none' };

/** Options of {@link startLocalStack}; ports of 0 / undefined mean "pick a free one" except where noted. */
export interface LocalStackOptions {
  dataDir: string;
  /** Base environment (process.env at the edge); values set here win over the stack's defaults. */
  env: Env;
  logger: Logger;
  source: CollectorSource;
  recordPath?: string;
  temporalPort?: number;
  /** null: headless Temporal (no Web UI). */
  uiPort?: number | null;
  postgresPort?: number;
  ingestPort?: number;
  /** The codec server's port (`CODEC_SERVER_PORT` wins); unused when headless. */
  codecPort?: number;
  /** Aborting it (Ctrl-C during start-up) stops what was started and rejects with the abort reason. */
  abortSignal?: AbortSignal;
  /** Live source only: the WhatsApp the collector connects to (`demo-send`'s simulated one); default Baileys. */
  whatsAppSocketFactory?: SocketFactory;
  /** Live source only: the collector's send timeout (ms, default 20 s, architecture.md §12); the send demo shortens it. */
  sendTimeoutMs?: number;
}

/** Everything `wa-lake dev` runs, with addresses an operator needs. */
export interface LocalStack {
  temporalAddress: string;
  uiUrl: string | null;
  /** The codec server the Web UI decrypts payloads with (architecture.md §14); null when headless. */
  codecServerUrl: string | null;
  databaseUrl: string;
  /** The embedded PostgreSQL's password file and libpq password file (`PGPASSFILE`); null with a `DATABASE_URL`. */
  postgresFiles: { passwordFile: string; pgpassFile: string } | null;
  /** The data folder's generated `PAYLOAD_ENCRYPTION_KEYS` file in use; null when the environment set the keys. */
  payloadKeyFile: string | null;
  /** The data folder's generated `ERASURE_KEY` file in use (ADR 0027); null when the environment set the key. */
  erasureKeyFile: string | null;
  /** The collector's outbox and status file (`OUTBOX_PATH`, `COLLECTOR_STATUS_PATH`) for `forget` and `status`. */
  outboxPath: string;
  collectorStatusPath: string;
  /** The codec server's base URL and its token file (null when `CODEC_SERVER_TOKEN` came from the environment). */
  codec: { url: string; tokenFile: string | null } | null;
  /** `SEND_WEBHOOK_ALLOW_HTTP`/`_PRIVATE` of the stack (true unless the environment said otherwise, ADR 0014). */
  webhookPolicyEnv: { SEND_WEBHOOK_ALLOW_HTTP: string; SEND_WEBHOOK_ALLOW_PRIVATE: string };
  ingestUrl: string;
  temporalClient: Client;
  collector: CollectorHandle | null;
  stop(): Promise<void>;
}

/**
 * Starts the whole pipeline on one machine (architecture.md §2 `wa-lake dev`): the Temporal dev server (state in
 * the data folder, Web UI, search attributes registered), embedded PostgreSQL migrated (unless
 * `DATABASE_URL` is set), the ingest API, the worker and a collector. A component that fails to start
 * stops everything started before it.
 *
 * @throws ConfigError when the environment is invalid; whatever a component throws at start.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const { env, logger } = options;
  if (options.source.kind === 'replay') {
    const unreadable = await describeUnreadableCapture(options.source.path);
    if (unreadable !== null) throw new Error(unreadable);
  }
  // A refused start leaves the data folder as it found it: ports are checked before the folder is made, locked or
  // written, unless a stack ran on it (its lock names a running one; a server a killed run left may be what holds
  // the ports, stopped below under the lock).
  if (!hasEarlierStack(dataDirLayout(options.dataDir), !env['DATABASE_URL'])) await assertStackPortsFree(options);
  const layout = prepareDataDir(options.dataDir);
  for (const change of layout.tightened)
    logger.warn(
      { path: change.path, fromMode: formatMode(change.fromMode), toMode: formatMode(change.toMode) },
      'private file or folder was open to other users; its mode was narrowed'
    );
  const teardown = new TeardownStack({ logger, stepTimeoutMs: COMPONENT_STOP_TIMEOUT_MS });
  const dataDirLock = lockDataDir(layout.root);
  teardown.defer('data-dir-lock', () => dataDirLock.release());
  const checkpoint = (): void => options.abortSignal?.throwIfAborted();
  // A step that hangs (e.g. the worker retrying a Temporal server that Ctrl-C already killed) must not
  // keep the stack from stopping: each step is raced against the abort signal.
  const step = <T>(promise: Promise<T>): Promise<T> => raceAbort(promise, options.abortSignal);
  try {
    // Servers a killed run left on this folder hold its ports and files: stopped first (the lock proves them ours).
    if (!env['DATABASE_URL']) await step(stopOrphanPostgres(layout.postgresDir, logger));
    await step(stopOrphanTemporal(layout, logger));
    // Every port asked for is checked before anything starts, so a taken one is named with its option (ADR 0017).
    await assertStackPortsFree(options);
    // architecture.md §14: the Web UI reads encrypted payloads through a codec server started before it.
    const uiPort = options.uiPort === null ? null : (options.uiPort ?? (await findFreePort()));
    const codec = await step(startDevCodecServer(layout, env, { uiPort, codecPort: options.codecPort ?? 0 }, logger));
    if (codec) teardown.defer('codec-server', () => codec.server.close());
    // The Temporal dev server and PostgreSQL start side by side (neither needs the other); each is handed to the
    // teardown as soon as it is up, so when one fails the other still stops.
    const [temporal, databaseUrl] = await bothOrFirstFailure(
      step(
        startTemporalDevServer({
          cliPath: resolveTemporalCliPath(env),
          dbFile: layout.temporalDbFile,
          port: options.temporalPort,
          uiPort,
          uiCodecEndpoint: codec?.uiEndpoint,
          pidFile: layout.temporalPidFile,
          onLog: (line) => logger.debug({ component: 'temporal-dev-server', line }, 'temporal output'),
        })
      ).then((server) => {
        teardown.defer('temporal-dev-server', () => server.stop());
        return server;
      }),
      env['DATABASE_URL'] ? Promise.resolve(env['DATABASE_URL']) : startStackPostgres(layout, options, teardown)
    );
    writeDevStackFile(layout.stackFile, { temporalAddress: temporal.address });
    logger.info(
      { address: temporal.address, uiUrl: temporal.uiUrl, serverPid: temporal.pid },
      'temporal dev server ready'
    );
    void temporal.unexpectedExit.then((exit) =>
      logger.error(
        { component: 'temporal-dev-server', serverPid: temporal.pid, code: exit.code, signal: exit.signal },
        'temporal dev server exited unexpectedly; deliveries stop until wa-lake dev is restarted'
      )
    );
    checkpoint();

    await step(runMigrations({ databaseUrl, logger }));
    checkpoint();

    const stackEnv = stackEnvironment(layout, options, temporal.address, databaseUrl);
    const collectorConfig = loadCollectorConfig(stackEnv);
    const ingest = await step(startIngestServer({ config: loadIngestConfig(stackEnv), logger }));
    teardown.defer('ingest-api', () => ingest.close());
    const ingestUrl = ingest.url;
    checkpoint();

    const workerEnv: Env = {
      ...stackEnv,
      WEBHOOK_URL: env['WEBHOOK_URL'] ?? `${ingestUrl}${INGEST_PATH}`,
      TEMPORAL_ADDRESS: temporal.address,
    };
    // One NativeConnection for the worker and the collector's client: with both in this process the
    // outbox relay asks for eager workflow start, and Temporal hands each new workflow's first task straight
    // back to this worker in the start response, without a matching round trip (ADR 0008).
    // Closed last (the teardown runs in reverse), after the collector and the worker.
    // The Runtime logger must be installed before the first NativeConnection creates the Runtime.
    installRuntimeLoggerOnce(logger);
    const connection = await step(NativeConnection.connect({ address: temporal.address }));
    teardown.defer('temporal-connection', () => connection.close());
    const worker = await step(runWorker({ config: loadWorkerConfig(workerEnv), logger, connection }));
    teardown.defer('worker', () => worker.stop());
    checkpoint();

    const temporalClient = new Client({
      connection,
      namespace: env['TEMPORAL_NAMESPACE'] ?? 'default',
      dataConverter: createDataConverter(loadWorkerConfig(workerEnv).PAYLOAD_ENCRYPTION_KEYS),
    });

    const collector = await startCollector(
      options,
      { ...stackEnv, TEMPORAL_ADDRESS: temporal.address },
      temporalClient
    );
    if (collector) teardown.defer('collector', () => collector.stop());
    checkpoint();

    return {
      temporalAddress: temporal.address,
      uiUrl: temporal.uiUrl,
      codecServerUrl: codec?.server.url ?? null,
      databaseUrl,
      postgresFiles: env['DATABASE_URL']
        ? null
        : { passwordFile: layout.postgresPasswordFile, pgpassFile: layout.pgpassFile },
      payloadKeyFile: env['PAYLOAD_ENCRYPTION_KEYS'] === undefined ? layout.payloadKeyFile : null,
      erasureKeyFile: env['ERASURE_KEY'] === undefined ? layout.erasureKeyFile : null,
      outboxPath: resolve(collectorConfig.OUTBOX_PATH),
      collectorStatusPath: resolve(collectorConfig.COLLECTOR_STATUS_PATH),
      codec: codec
        ? { url: codec.server.url, tokenFile: env['CODEC_SERVER_TOKEN'] === undefined ? layout.codecTokenFile : null }
        : null,
      webhookPolicyEnv: {
        SEND_WEBHOOK_ALLOW_HTTP: stackEnv['SEND_WEBHOOK_ALLOW_HTTP'] ?? 'true',
        SEND_WEBHOOK_ALLOW_PRIVATE: stackEnv['SEND_WEBHOOK_ALLOW_PRIVATE'] ?? 'true',
      },
      ingestUrl,
      temporalClient,
      collector,
      stop: () => teardown.disposeAsync(),
    };
  } catch (err) {
    await teardown.disposeAsync();
    // Ctrl-C kills the children too, so the step that failed reports a symptom; the cause is the signal.
    if (options.abortSignal?.aborted) throw options.abortSignal.reason;
    throw err;
  }
}

/** @throws PortInUseError naming every port asked for that another process holds, with its option. */
async function assertStackPortsFree(options: LocalStackOptions): Promise<void> {
  const { env } = options;
  await assertPortsFree([
    { port: options.temporalPort, purpose: 'the Temporal frontend (--temporal-port)' },
    { port: options.uiPort, purpose: 'the Temporal Web UI (--ui-port)' },
    { port: env['INGEST_PORT'] === undefined ? options.ingestPort : null, purpose: 'the ingest API (--ingest-port)' },
    { port: env['DATABASE_URL'] ? null : options.postgresPort, purpose: 'embedded PostgreSQL (--postgres-port)' },
    {
      port: options.uiPort === null || env['CODEC_SERVER_PORT'] !== undefined ? null : options.codecPort,
      purpose: 'the codec server (--codec-port)',
    },
  ]);
}

/** Embedded PostgreSQL in the data folder, deferred on `teardown`. @returns its database URL. */
async function startStackPostgres(
  layout: DataDirLayout,
  options: LocalStackOptions,
  teardown: TeardownStack
): Promise<string> {
  const { logger } = options;
  const postgres = await startEmbeddedPostgres({
    dataDir: layout.postgresDir,
    database: 'wa_lake',
    port: options.postgresPort,
    password: loadOrCreatePostgresPassword(layout),
    onLog: (line) => logger.debug({ component: 'embedded-postgres', line }, 'postgres output'),
  });
  teardown.defer('embedded-postgres', () => postgres.stop());
  // psql and pg_dump in another terminal read the password here (PGPASSFILE), never from their command line.
  writePgpassFile(layout.pgpassFile, postgres.databaseUrl);
  logger.info({ port: postgres.port, serverPid: postgres.pid }, 'embedded postgresql ready');
  void postgres.unexpectedExit.then((exit) =>
    logger.error(
      { component: 'embedded-postgres', serverPid: postgres.pid, code: exit.code, signal: exit.signal },
      'embedded postgresql exited unexpectedly; the lake is unavailable until wa-lake dev is restarted'
    )
  );
  return postgres.databaseUrl;
}

/** The environment every process of the stack reads: the stack's own values, then the caller's, which win. */
function stackEnvironment(
  layout: DataDirLayout,
  options: LocalStackOptions,
  temporalAddress: string,
  databaseUrl: string
): Env {
  return {
    TEMPORAL_ADDRESS: temporalAddress,
    WHATSAPP_WEBHOOK_SECRET: loadOrCreateWebhookSecret(layout.secretFile),
    PAYLOAD_ENCRYPTION_KEYS: loadOrCreatePayloadEncryptionKeys(layout.payloadKeyFile),
    ERASURE_KEY: loadOrCreateErasureKey(layout.erasureKeyFile),
    OUTBOX_PATH: layout.outboxPath,
    AUTH_DIR: layout.authDir,
    INGEST_PORT: String(options.ingestPort ?? 0),
    // A development stack: status webhooks may go to a local receiver over http (ADR 0014); env wins.
    SEND_WEBHOOK_ALLOW_HTTP: 'true',
    SEND_WEBHOOK_ALLOW_PRIVATE: 'true',
    ...options.env,
    DATABASE_URL: databaseUrl,
  };
}

/** Both results once both have settled; @throws the first one's error when it failed, else the second one's. */
async function bothOrFirstFailure<A, B>(first: Promise<A>, second: Promise<B>): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}

/** Rejects with the signal's reason as soon as it aborts, whatever `promise` is still doing. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void =>
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted', { cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function startCollector(
  options: LocalStackOptions,
  env: Env,
  temporalClient: Client
): Promise<CollectorHandle | null> {
  if (options.source.kind === 'none') return null;
  const config = loadCollectorConfig(env);
  const alertSink = createWindowedAlertSink({
    windowMs: config.ALERT_WINDOW_MS,
    webhookUrl: config.ALERT_WEBHOOK_URL,
    logger: options.logger,
  });
  return runCollector({
    config,
    logger: options.logger,
    alertSink,
    temporalClient,
    // The client shares the in-process worker's NativeConnection (above).
    requestEagerStart: true,
    source: options.source,
    recordPath: options.recordPath,
    ...(options.whatsAppSocketFactory ? { socketFactory: options.whatsAppSocketFactory } : {}),
    // Outbound send (architecture.md §12): the dispatch worker on the account's session queue (live sessions only).
    ...(config.OUTBOUND_SEND_ENABLED
      ? {
          send: {
            accountId: config.SEND_ACCOUNT_ID,
            ...(options.sendTimeoutMs !== undefined ? { sendTimeoutMs: options.sendTimeoutMs } : {}),
          },
        }
      : {}),
  });
}
