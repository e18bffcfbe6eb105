import type { Logger } from '../../common/logger.js';
import { describeUnusableReplay } from '../../collector/index.js';
import { resolveTemporalCliPath } from '../../dev-stack/temporal-binaries.js';
import { countStoredEvents } from '../../lake/index.js';
import { printLine } from '../commands/shared.js';
import { prepareDataDir } from '../local-stack/data-dir.js';
import { devBannerLines } from '../local-stack/dev-banner.js';
import { type LocalStack, startLocalStack } from '../local-stack/start-local-stack.js';
import {
  createShutdownSignal,
  runUntilTerminated,
  ShutdownRequestedError,
  waitForAbort,
} from '../run-until-os-signal.js';
import { awaitDeliveries } from './await-deliveries.js';
import { writeDemoEngagement } from './demo-engagement.js';
import { type DemoSummary, describeDemoTimeout, formatDemoSummary } from './demo-summary.js';
import { waitForOutboxDrain } from './wait-for-outbox-drain.js';

/** What `wa-lake demo` was asked for, once its capture and data folder passed their checks. */
export interface DemoRun {
  capture: string;
  /** The data folder, as given and claimed (`claimDemoDataDir`). */
  dataDir: string;
  json?: boolean;
  keepRunning?: boolean;
  timeoutMs: number;
}

/**
 * The body of `wa-lake demo` after its checks (cli/commands/demo.ts): starts the local stack, replays the capture
 * through it, prints the summary and the engagement lines, and sets the exit code (0 ok, 1 mismatch or timeout,
 * 130 Ctrl-C). In a module of its own so that a refused capture or data folder never loads the stack.
 */
export async function runDemo(run: DemoRun, logger: Logger): Promise<void> {
  const { capture } = run;
  const shutdown = createShutdownSignal(logger);
  const stack = await startLocalStack({
    abortSignal: shutdown.signal,
    dataDir: run.dataDir,
    env: { ...process.env, OUTBOX_POLL_INTERVAL_MS: process.env['OUTBOX_POLL_INTERVAL_MS'] ?? '100' },
    logger,
    source: { kind: 'replay', path: capture },
    uiPort: undefined,
  });
  let summary: DemoSummary;
  let engagementLines: string[] = [];
  let unusable: string | null = null;
  let reportFailure: string | null = null;
  try {
    summary = await collectSummary(stack, capture, run.timeoutMs, logger, shutdown.signal);
    // The Web UI stops with the demo: name it only when it stays up.
    if (!run.keepRunning) summary = { ...summary, webUi: null };
    // An empty or malformed-only capture proves nothing: never print "OK" for it.
    unusable = describeUnusableReplay({ ...summary, lines: summary.read }, capture);
    if (unusable !== null) summary = { ...summary, ok: false };
    // The demo ends with what the lake is for — engagement, and its report. The delivery summary is printed
    // whatever the report does: a report that fails is said on stderr and makes the exit code 1.
    try {
      const engagement = await writeDemoEngagement(stack.databaseUrl, run.dataDir);
      summary = { ...summary, engagement: engagement.engagement, engagementReport: engagement.reportPath };
      engagementLines = [...engagement.lines, `  engagement report : ${engagement.reportPath}`];
    } catch (err) {
      if (err instanceof ShutdownRequestedError) throw err;
      reportFailure = `the engagement report failed (${err instanceof Error ? err.message : String(err)}); the delivery summary above stands`;
    }
  } catch (err) {
    await stack.stop();
    shutdown.dispose();
    // Ctrl-C is the operator's choice, not a pipeline failure: no summary, no MISMATCH.
    if (err instanceof ShutdownRequestedError) {
      process.stderr.write(`wa-lake demo: ${err.message} before delivery finished; the stack was stopped\n`);
      process.exitCode = 130;
      return;
    }
    throw err;
  }
  process.stdout.write(formatDemoSummary(summary));
  for (const line of engagementLines) printLine(line);
  if (run.keepRunning) {
    // The kept stack is used like `wa-lake dev`'s: the same banner gives its addresses and `export` lines.
    const banner = devBannerLines(
      { ...stack, dataDir: prepareDataDir(run.dataDir).root, temporalCli: resolveTemporalCliPath(process.env) },
      'wa-lake demo keeps its stack running (Ctrl-C stops everything)'
    );
    for (const line of banner) printLine(line);
    await runUntilTerminated(() => stack.stop(), logger, shutdown);
  } else {
    await stack.stop();
    shutdown.dispose();
  }
  if (run.json) printLine(JSON.stringify(summary));
  if (unusable !== null) process.stderr.write(`wa-lake demo: ${unusable}\n`);
  if (reportFailure !== null) process.stderr.write(`wa-lake demo: ${reportFailure}\n`);
  // A wait that ran out is said as such on stderr too: the exit code is 1, and no event was lost.
  const timeout = summary.ok ? null : describeDemoTimeout(summary);
  if (timeout !== null) process.stderr.write(`wa-lake demo: ${timeout}\n`);
  process.exitCode = summary.ok && reportFailure === null ? 0 : 1;
}

async function collectSummary(
  stack: LocalStack,
  capture: string,
  timeoutMs: number,
  logger: Logger,
  abortSignal: AbortSignal
): Promise<DemoSummary> {
  const collector = stack.collector;
  if (!collector?.replayDone) throw new Error('demo needs a replaying collector');
  // Every wait below gives way to Ctrl-C at once (the shutdown signal), not at the delivery timeout.
  const replay = await Promise.race([collector.replayDone, waitForAbort(abortSignal)]);
  abortSignal.throwIfAborted();
  if (!replay) throw new Error('demo needs a replaying collector');
  const stillPending = await waitForOutboxDrain(collector.outbox, timeoutMs, undefined, abortSignal);
  if (stillPending > 0) logger.warn({ stillPending }, 'outbox not drained before the timeout');
  const deliverable = [...replay.eventIds].filter((eventId) => collector.outbox.get(eventId)?.state !== 'dead');
  const workflows = await awaitDeliveries(stack.temporalClient, deliverable, timeoutMs, abortSignal);
  const lakeRows = await countStoredEvents(stack.databaseUrl, deliverable);
  return {
    capture,
    read: replay.lines,
    items: replay.items,
    kept: replay.kept,
    distinctKept: replay.eventIds.size,
    dropped: replay.dropped,
    duplicatesRejected: replay.duplicates,
    malformedLines: replay.malformedLines,
    recordsWithoutItems: replay.recordsWithoutItems,
    blankLines: replay.blankLines,
    outbox: collector.outbox.countByState(),
    quarantined: replay.eventIds.size - deliverable.length,
    workflows,
    lakeRows,
    webUi: stack.uiUrl,
    ok: lakeRows === deliverable.length && workflows.failed === 0 && workflows.unfinished === 0,
    timeoutMs,
    // Unfinished workflows or pending outbox rows mean the deadline passed, not that an event was lost.
    timedOut: stillPending > 0 || workflows.unfinished > 0,
  };
}
