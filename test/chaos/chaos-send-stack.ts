import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHAOS_SEND_ACCOUNT_ID } from './chaos-send-plan.js';
import { ChaosStack } from './chaos-stack.js';
import { startTsScript } from './cli-process.js';

const SIMULATED_COLLECTOR = fileURLToPath(new URL('./simulated-collector.ts', import.meta.url));

/**
 * The deployment of the chaos send phase (ADR 0015): the chaos stack's PostgreSQL, Temporal dev server,
 * `wa-lake ingest-api` and `wa-lake worker`, each its own process, with the send settings below, and a
 * collector process on the simulated WhatsApp (`simulated-collector.ts`) instead of a capture replay.
 */
export class ChaosSendStack extends ChaosStack {
  constructor(
    dir: string,
    private readonly recipients: number
  ) {
    super(dir, '');
  }

  /** The simulated WhatsApp's wire log: one JSON line per message it accepted, across collector restarts. */
  get wirePath(): string {
    return join(this.dir, 'wire.jsonl');
  }

  protected override commonEnv(): Record<string, string> {
    return {
      ...super.commonEnv(),
      TEMPORAL_ADDRESS: this.temporalAddress(),
      SEND_ACCOUNT_ID: CHAOS_SEND_ACCOUNT_ID,
      OUTBOUND_SEND_ENABLED: 'true',
      // Fast enough that a thousand messages settle in minutes; per-recipient pacing keeps its 6 s default.
      SEND_RATE_PER_MINUTE: '6000',
      SEND_RATE_BURST: '100',
      SEND_SWEEP_INTERVAL_MS: '2000',
      SEND_API_KEY_REQUESTS_MAX: '1000000',
      SESSION_RECONNECT_BASE_DELAY_MS: '200',
    };
  }

  /** Starts the collector on the simulated WhatsApp, on the stack's outbox and wire log (again after a kill). */
  override startCollector(): void {
    this.collector = startTsScript(
      'collector',
      SIMULATED_COLLECTOR,
      {
        ...this.commonEnv(),
        OUTBOX_PATH: this.outboxPath,
        AUTH_DIR: join(this.dir, 'auth'),
        OUTBOX_POLL_INTERVAL_MS: '100',
        CHAOS_WIRE_PATH: this.wirePath,
        CHAOS_SEND_RECIPIENTS: String(this.recipients),
      },
      this.logFile('collector')
    );
  }
}
