import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { INGEST_PATH } from '../../common/ingest-body.js';
import { startEmbeddedPostgres, type RunningPostgres } from '../../dev-stack/embedded-postgres.js';
import { findFreePort } from '../../dev-stack/tcp-ports.js';
import { resolveTemporalCliPath } from '../../dev-stack/temporal-binaries.js';
import { startTemporalDevServer, type RunningTemporalDevServer } from '../../dev-stack/temporal-dev-server.js';
import { runMigrations } from '../../lake/migrate.js';
import { CHAOS_INGEST_BODY_LIMIT_BYTES, CHAOS_OUTBOX_BODY_LIMIT_BYTES } from './chaos-capture.js';
import { startCli, type CliProcess } from './cli-process.js';

const SECRET = 'chaos-secret-0123456789abcdefghij';
const WRONG_SECRET = 'wrong-secret-0123456789abcdefghij';

/** Alerts the stack's processes posted to its webhook receiver, by kind, with the time each arrived. */
export type AlertLog = Array<{ kind: string; atMs: number }>;

/**
 * One wa-lake deployment on this machine for the chaos test: every part its own
 * process — Temporal dev server and embedded PostgreSQL (children of this process, with their state
 * in files that survive a restart), and `wa-lake ingest-api`, `wa-lake worker`, `wa-lake replay` as
 * separate CLI processes on fixed ports — so each can be killed and restarted on the same state.
 */
export class ChaosStack {
  readonly alerts: AlertLog = [];
  postgres: RunningPostgres | null = null;
  temporal: RunningTemporalDevServer | null = null;
  ingest: CliProcess | null = null;
  worker: CliProcess | null = null;
  collector: CliProcess | null = null;
  client: Client | null = null;
  private connection: Connection | null = null;
  private alertServer: Server | null = null;
  protected readonly ports = { postgres: 0, temporal: 0, ingest: 0, alerts: 0 };

  constructor(
    readonly dir: string,
    private readonly capturePath: string
  ) {}

  get ingestUrl(): string {
    return `http://127.0.0.1:${this.ports.ingest}`;
  }

  get outboxPath(): string {
    return join(this.dir, 'outbox.sqlite');
  }

  get databaseUrl(): string {
    return this.postgres?.databaseUrl ?? '';
  }

  protected logFile(name: string): string {
    return join(this.dir, `${name}.log`);
  }

  /** Starts every part once; the collector starts replaying at the end. */
  async start(): Promise<void> {
    await this.startServers();
    this.startProcesses();
  }

  /**
   * Starts what the wa-lake processes need and no fault touches before they run: the alert receiver, PostgreSQL
   * (migrated) and the Temporal dev server, with this process's client. Nothing flows until {@link startProcesses}.
   */
  async startServers(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    for (const key of Object.keys(this.ports) as Array<keyof typeof this.ports>) this.ports[key] = await findFreePort();
    await this.startAlertReceiver();
    await Promise.all([this.startPostgres(), this.startTemporal()]);
    await runMigrations({ databaseUrl: this.databaseUrl });
    this.connection = await Connection.connect({ address: this.temporalAddress() });
    this.client = new Client({ connection: this.connection, namespace: 'default' });
  }

  /** Starts `wa-lake ingest-api`, `wa-lake worker` and the collector together, as a deploy does. */
  startProcesses(): void {
    this.startIngest();
    this.startWorker();
    this.startCollector();
  }

  protected temporalAddress(): string {
    return `127.0.0.1:${this.ports.temporal}`;
  }

  private startAlertReceiver(): Promise<void> {
    this.alertServer = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { content?: string };
        const kind = /\] ([a-z_]+):/.exec(body.content ?? '')?.[1] ?? 'unknown';
        this.alerts.push({ kind, atMs: Date.now() });
        res.writeHead(204).end();
      });
    });
    const server = this.alertServer;
    return new Promise((resolve) => server.listen(this.ports.alerts, '127.0.0.1', resolve));
  }

  async startPostgres(): Promise<void> {
    this.postgres = await startEmbeddedPostgres({
      dataDir: join(this.dir, 'postgres'),
      database: 'wa_lake',
      port: this.ports.postgres,
    });
  }

  async startTemporal(): Promise<void> {
    this.temporal = await startTemporalDevServer({
      cliPath: resolveTemporalCliPath(process.env),
      dbFile: join(this.dir, 'temporal.sqlite'),
      port: this.ports.temporal,
      uiPort: null,
    });
  }

  /** Environment of every wa-lake process of the stack (each reads only its own keys). */
  protected commonEnv(): Record<string, string> {
    return { LOG_LEVEL: 'info', ALERT_WEBHOOK_URL: `http://127.0.0.1:${this.ports.alerts}/alerts` };
  }

  startIngest(): void {
    this.ingest = startCli(
      'ingest-api',
      ['ingest-api'],
      {
        ...this.commonEnv(),
        DATABASE_URL: this.databaseUrl,
        WHATSAPP_WEBHOOK_SECRET: SECRET,
        INGEST_HOST: '127.0.0.1',
        INGEST_PORT: String(this.ports.ingest),
        INGEST_BODY_LIMIT_BYTES: String(CHAOS_INGEST_BODY_LIMIT_BYTES),
        // The wrong-secret worker's refusals block its address (429 with Retry-After, ADR 0014) for the rest of
        // the window: 5 failures in 5 s instead of 20 in a minute, so even the CI-size run meets the block, and
        // it lifts within the run instead of being waited out.
        INGEST_AUTH_FAILURES_MAX: '5',
        INGEST_AUTH_FAILURE_WINDOW_MS: '5000',
      },
      this.logFile('ingest-api')
    );
  }

  /** Starts the worker, signing with the right secret or (a misconfigured deploy) with a wrong one. */
  startWorker(options: { isSecretWrong?: boolean } = {}): void {
    this.worker = startCli(
      'worker',
      ['worker'],
      {
        ...this.commonEnv(),
        TEMPORAL_ADDRESS: this.temporalAddress(),
        WEBHOOK_URL: `http://127.0.0.1:${this.ports.ingest}${INGEST_PATH}`,
        WHATSAPP_WEBHOOK_SECRET: options.isSecretWrong === true ? WRONG_SECRET : SECRET,
        HTTP_TIMEOUT_MS: '5000',
        WORKER_SHUTDOWN_GRACE_TIME_MS: '6000',
      },
      this.logFile('worker')
    );
  }

  /** Starts `wa-lake replay` of the capture on the stack's outbox (again after a kill: duplicates are ignored). */
  startCollector(): void {
    this.collector = startCli(
      'collector',
      ['replay', this.capturePath, '--wait-ms', '1800000'],
      {
        ...this.commonEnv(),
        OUTBOX_PATH: this.outboxPath,
        AUTH_DIR: join(this.dir, 'auth'),
        TEMPORAL_ADDRESS: this.temporalAddress(),
        OUTBOX_POLL_INTERVAL_MS: '100',
        OUTBOX_BODY_LIMIT_BYTES: String(CHAOS_OUTBOX_BODY_LIMIT_BYTES),
        // A modest pace, so the faults below land while events are still flowing.
        OUTBOX_RELAY_BATCH_SIZE: '10',
        OUTBOX_RELAY_CONCURRENCY: '4',
        OUTBOX_RELAY_RETRY_MAX_DELAY_MS: '5000',
      },
      this.logFile('collector')
    );
  }

  async restartPostgres(): Promise<void> {
    await this.postgres?.stop();
    await this.startPostgres();
  }

  async restartTemporal(): Promise<void> {
    await this.temporal?.stop();
    await this.startTemporal();
  }

  /** Stops everything, children first, then the servers. Never throws. */
  async stop(): Promise<void> {
    for (const process of [this.collector, this.worker, this.ingest])
      await process?.stop(10_000).catch(() => undefined);
    await this.connection?.close().catch(() => undefined);
    await this.temporal?.stop().catch(() => undefined);
    await this.postgres?.stop().catch(() => undefined);
    await new Promise<void>((resolve) => (this.alertServer ? this.alertServer.close(() => resolve()) : resolve()));
  }
}
