import { join } from 'node:path';
import { vi, expect } from 'vitest';
import type { CollectorConfig } from '../../collector/config.js';
import { runCollector } from '../../collector/run-collector.js';
import {
  collectorConfigIn,
  createRecordingAlertSink,
  createRecordingLogger,
  createTempDir,
} from './collector-test-kit.js';
import { createDoubleFactory, type SocketDouble } from './socket-double.js';

/** Cleanups of one test, run in reverse order after it. */
export type Cleanups = Array<() => Promise<void> | void>;

/** A collector of {@link startLiveCollector} and what a test reaches it through. */
export interface LiveCollector {
  dir: string;
  config: CollectorConfig;
  collector: Awaited<ReturnType<typeof runCollector>>;
  doubles: ReturnType<typeof createDoubleFactory>;
  /** The first socket, created before this resolves (the session is not open yet). */
  socket: SocketDouble;
  /** `OUTBOX_PATH` and `AUTH_DIR` of the collector, for `wa-lake` commands run beside it. */
  cliEnv: { OUTBOX_PATH: string; AUTH_DIR: string };
}

/**
 * Runs a live collector over socket doubles in a fresh temp folder, without Temporal (`temporalClient: null`),
 * with a recording logger and alert sink; `extra` goes to {@link collectorConfigIn}. Pushes the folder's removal,
 * then the collector's stop, onto `cleanups`; resolves once the first socket exists.
 */
export async function startLiveCollector(
  cleanups: Cleanups,
  prefix: string,
  extra: Record<string, string> = {}
): Promise<LiveCollector> {
  const { dir, cleanup } = createTempDir(prefix);
  cleanups.push(cleanup);
  const config = collectorConfigIn(dir, extra);
  const doubles = createDoubleFactory();
  const collector = await runCollector({
    config,
    logger: createRecordingLogger().logger,
    alertSink: createRecordingAlertSink().sink,
    temporalClient: null,
    source: { kind: 'live' },
    socketFactory: doubles.factory,
  });
  cleanups.push(() => collector.stop());
  await vi.waitFor(() => expect(doubles.sockets).toHaveLength(1));
  return {
    dir,
    config,
    collector,
    doubles,
    socket: doubles.sockets[0]!,
    cliEnv: { OUTBOX_PATH: join(dir, 'outbox.sqlite'), AUTH_DIR: join(dir, 'auth') },
  };
}
