import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { Alert, AlertSink } from '../../common/alert-sink.js';
import { loadCollectorConfig, type CollectorConfig } from '../../collector/config.js';

/** A fresh temp directory per test (house style §7), removed by `cleanup()`. */
export function createTempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `wa-lake-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A pino logger whose records land in `records` (assert on logs, house style §7). */
export function createRecordingLogger(): { logger: Logger; records: Array<Record<string, unknown>> } {
  const records: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void records.push(JSON.parse(line) as Record<string, unknown>) }
  );
  return { logger, records };
}

/** An alert sink that records every alert it is asked to send (no window). */
export function createRecordingAlertSink(): { sink: AlertSink; alerts: Alert[] } {
  const alerts: Alert[] = [];
  return { sink: { send: (alert) => Promise.resolve(alerts.push(alert) > 0) }, alerts };
}

/** Collector config in `dir`, through the real loader, with explicit values. */
export function collectorConfigIn(dir: string, extra: Record<string, string> = {}): CollectorConfig {
  return loadCollectorConfig({
    OUTBOX_PATH: join(dir, 'outbox.sqlite'),
    AUTH_DIR: join(dir, 'auth'),
    OUTBOX_POLL_INTERVAL_MS: '50',
    HEARTBEAT_INTERVAL_MS: '60000',
    ...extra,
  });
}
