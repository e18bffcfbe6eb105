import { join } from 'node:path';
import type { Command } from 'commander';
import type { Logger } from '../../common/logger.js';
import { describeUnusableReplay } from '../../collector/index.js';
import { packageRoot } from '../../common/package-root.js';
import { resolveTemporalCliPath } from '../../dev-stack/temporal-binaries.js';
import { awaitDeliveries } from '../demo/await-deliveries.js';
import { countStoredEvents } from '../../lake/index.js';
import { writeDemoEngagement } from '../demo/demo-engagement.js';
import { type DemoSummary, describeDemoTimeout, formatDemoSummary } from '../demo/demo-summary.js';
import { waitForOutboxDrain } from '../demo/wait-for-outbox-drain.js';
import { prepareDataDir } from '../local-stack/data-dir.js';
import { devBannerLines } from '../local-stack/dev-banner.js';
import { claimDemoDataDir } from '../local-stack/demo-data-dir.js';
import { describeUnreplayableCapture } from '../local-stack/describe-unreplayable-capture.js';
import { type LocalStack, startLocalStack } from '../local-stack/start-local-stack.js';
import {
  createShutdownSignal,
  runUntilTerminated,
  ShutdownRequestedError,
  waitForAbort,
} from '../run-until-os-signal.js';
import { DAY_MS, integerInRange } from './option-parsers.js';
import { createCliLogger, printLine } from './shared.js';

interface DemoOptions {
  json?: boolean;
  keepRunning?: boolean;
  dataDir: string;
  timeoutMs: number;
}

/**
 * Registers `wa-lake demo [capture]` (`npm run demo`): starts the whole local stack in a
 * fresh data folder, replays the capture through the live path, waits for every workflow, and prints a
 * summary (with `--json`, also one JSON object on the last stdout line). Exit code 1 when the lake does
 * not hold each distinct kept event exactly once: `TIMEOUT` when `--timeout-ms` ran out with events still on their
 * way (pending in the outbox, workflows unfinished), `MISMATCH` otherwise.
 */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('replay a capture through the whole local pipeline and print what reached the lake')
    .argument('[capture]', 'capture file (our JSON lines or the first collector trail; default: the example capture)')
    .option('--json', 'also print the summary as one JSON object on the last line')
    .option('--keep-running', 'keep the stack (and its Web UI) running after the summary, until Ctrl-C')
    .option('--data-dir <dir>', 'state folder: new, empty, or made by an earlier demo (emptied at start)', '.data/demo')
    .option(
      '--timeout-ms <ms>',
      'how long to wait for deliveries (ms, at most a day)',
      integerInRange(1, DAY_MS),
      180_000
    )
    .action(async (captureArgument: string | undefined, options: DemoOptions) => {
      // The example capture is found from any working directory, not only from the checkout.
      const capture = captureArgument ?? join(packageRoot(), 'examples', 'capture.jsonl');
      const logger = createCliLogger('warn');
      const unreplayable = await describeUnreplayableCapture(capture);
      if (unreplayable !== null) {
        process.stderr.write(`wa-lake demo: ${unreplayable}; the stack was not started\n`);
        process.exitCode = 1;
        return;
      }
      await claimDemoDataDir(options.dataDir, logger);
      const shutdown = createShutdownSignal(logger);
      const stack = await startLocalStack({
        abortSignal: shutdown.signal,
        dataDir: options.dataDir,
        env: { ...process.env, OUTBOX_POLL_INTERVAL_MS: process.env['OUTBOX_POLL_INTERVAL_MS'] ?? '100' },
        logger,
        source: { kind: 'replay', path: capture },
        uiPort: undefined,
      });
      let summary: DemoSummary;
      let engagementLines: string[] = [];
      let unusable: string | null = null;
      try {
        summary = await collectSummary(stack, capture, options.timeoutMs, logger, shutdown.signal);
        // The Web UI stops with the demo: name it only when it stays up.
        if (!options.keepRunning) summary = { ...summary, webUi: null };
        // An empty or malformed-only capture proves nothing: never print "OK" for it.
        unusable = describeUnusableReplay({ ...summary, lines: summary.read }, capture);
        if (unusable !== null) summary = { ...summary, ok: false };
        // The demo ends with what the lake is for — engagement, and its report.
        const engagement = await writeDemoEngagement(stack.databaseUrl, options.dataDir);
        summary = { ...summary, engagement: engagement.engagement, engagementReport: engagement.reportPath };
        engagementLines = [...engagement.lines, `  engagement report : ${engagement.reportPath}`];
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
      if (options.keepRunning) {
        // The kept stack is used like `wa-lake dev`'s: the same banner gives its addresses and `export` lines.
        const banner = devBannerLines(
          { ...stack, dataDir: prepareDataDir(options.dataDir).root, temporalCli: resolveTemporalCliPath(process.env) },
          'wa-lake demo keeps its stack running (Ctrl-C stops everything)'
        );
        for (const line of banner) printLine(line);
        await runUntilTerminated(() => stack.stop(), logger, shutdown);
      } else {
        await stack.stop();
        shutdown.dispose();
      }
      if (options.json) printLine(JSON.stringify(summary));
      if (unusable !== null) process.stderr.write(`wa-lake demo: ${unusable}\n`);
      // A wait that ran out is said as such on stderr too: the exit code is 1, and no event was lost.
      const timeout = summary.ok ? null : describeDemoTimeout(summary);
      if (timeout !== null) process.stderr.write(`wa-lake demo: ${timeout}\n`);
      process.exitCode = summary.ok ? 0 : 1;
    });
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
