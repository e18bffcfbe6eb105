import type { Command } from 'commander';
import {
  describeUnreadableCapture,
  describeUnusableReplay,
  loadCollectorConfig,
  runCollector,
  type ReplaySummary,
} from '../../collector/index.js';
import { createLazyTemporalClient } from '../../common/lazy-temporal-client.js';
import { createDataConverter, warnWhenPayloadsInClear } from '../../common/temporal-data-converter.js';
import { createWindowedAlertSink } from '../../common/windowed-alert-sink.js';
import { installRuntimeLoggerOnce } from '../../worker/index.js';
import { waitForOutboxDrain } from '../demo/wait-for-outbox-drain.js';
import { createShutdownSignal, ShutdownRequestedError, waitForAbort } from '../run-until-os-signal.js';
import { DAY_MS, integerInRange, outputPath } from './option-parsers.js';
import { createCliLogger, printSummary } from './shared.js';

/** Config, logger, windowed alert sink and a lazy Temporal client: what both collector commands run with. */
function createCollectorDeps() {
  const config = loadCollectorConfig(process.env);
  const logger = createCliLogger();
  const alertSink = createWindowedAlertSink({
    windowMs: config.ALERT_WINDOW_MS,
    webhookUrl: config.ALERT_WEBHOOK_URL,
    logger,
  });
  warnWhenPayloadsInClear(logger, config.PAYLOAD_ENCRYPTION_KEYS);
  return {
    config,
    logger,
    alertSink,
    temporal: createLazyTemporalClient(config.temporal, createDataConverter(config.PAYLOAD_ENCRYPTION_KEYS)),
  };
}

/** Registers `wa-lake collector` and `wa-lake replay <capture>` (architecture.md §10). */
export function registerCollectorCommands(program: Command): void {
  program
    .command('collector')
    .description('run the WhatsApp session, outbox and outbox relay (configured by environment variables)')
    .option('--record <file>', 'record every Baileys event received (personal data!) as JSON lines', outputPath)
    .option('--pair-phone <number>', 'link with a pairing code for this phone number instead of a QR code')
    .action(async (options: { record?: string; pairPhone?: string }) => {
      const { config, logger, alertSink, temporal } = createCollectorDeps();
      const shutdown = createShutdownSignal(logger);
      // The session send worker is a Temporal Worker: its SDK and Core logs go through pino as JSON lines
      // too, not the SDK's multi-line console default (ADR 0018).
      installRuntimeLoggerOnce(logger);
      const collector = await runCollector({
        config,
        logger,
        alertSink,
        temporalClient: temporal.client,
        source: { kind: 'live', pairPhone: options.pairPhone },
        recordPath: options.record,
        ...(config.OUTBOUND_SEND_ENABLED ? { send: { accountId: config.SEND_ACCOUNT_ID } } : {}),
      });
      // The session ends by itself on 401/403 (logged out: it has logged how to re-link); exit non-zero then.
      const ended = await Promise.race([
        waitForAbort(shutdown.signal).then(() => 'signal' as const),
        collector.sessionStopped ?? new Promise<never>(() => undefined),
      ]);
      await collector.stop();
      await temporal.close();
      shutdown.dispose();
      if (ended === 'logged_out' || ended === 'forbidden') process.exitCode = 2;
    });

  program
    .command('replay')
    .description('feed a capture file (ours or the first collector trail) through filter → keys → outbox → Temporal')
    .argument('<capture>', 'capture file, or a folder of the first collector trail (logs/<event>/<date>.json)')
    .option(
      '--wait-ms <ms>',
      'how long to wait for the outbox to be handed to Temporal after reading (ms, at most a day)',
      integerInRange(0, DAY_MS),
      60_000
    )
    .action(async (capture: string, options: { waitMs: number }) => {
      // Checked before the outbox is opened: a typo, a data folder or a pipe must not leave an empty outbox behind.
      const unreadable = await describeUnreadableCapture(capture);
      if (unreadable !== null) {
        process.stderr.write(`wa-lake replay: ${unreadable}; nothing was read and no outbox was opened\n`);
        process.exitCode = 1;
        return;
      }
      const { config, logger, alertSink, temporal } = createCollectorDeps();
      // Ctrl-C stops the replay cleanly: the status file records the stop and the operator learns that a
      // re-run continues, rather than a silent exit 130 with the status still "running".
      const shutdown = createShutdownSignal(logger);
      const collector = await runCollector({
        config,
        logger,
        alertSink,
        temporalClient: temporal.client,
        source: { kind: 'replay', path: capture },
      });
      try {
        const summary = await Promise.race([collector.replayDone, waitForAbort(shutdown.signal)]);
        shutdown.signal.throwIfAborted();
        const unusable = summary ? describeUnusableReplay(summary, capture) : null;
        if (unusable !== null) {
          process.stderr.write(`wa-lake replay: ${unusable}\n`);
          process.exitCode = 1;
          return;
        }
        const pending = await waitForOutboxDrain(collector.outbox, options.waitMs, undefined, shutdown.signal);
        const lines = summary ? describeReplayCounts(summary) : [];
        lines.push(`${pending} still pending (the next collector run sends them)`);
        printSummary(logger, lines, { ...(summary ? replayCountFields(summary) : {}), pending });
      } catch (err) {
        if (!(err instanceof ShutdownRequestedError)) throw err;
        process.stderr.write(
          `wa-lake replay: ${err.message} before the replay finished; the outbox (${config.OUTBOX_PATH}) keeps ` +
            'what was read — run the same command again to continue (events already there are skipped)\n'
        );
        process.exitCode = 130;
      } finally {
        await collector.stop();
        await temporal.close();
        shutdown.dispose();
      }
    });
}

/**
 * The replay's counts as printed by `wa-lake replay`: every line of the capture lands in exactly one
 * count, a record with `data: null` or `messages: []` included.
 */
export function describeReplayCounts(summary: ReplaySummary): string[] {
  const droppedItems = Object.values(summary.dropped).reduce((sum, count) => sum + count, 0);
  const withItems = summary.records - summary.recordsWithoutItems;
  return [
    `read ${summary.lines + summary.blankLines} lines: ${summary.records} records, ` +
      `${summary.malformedLines} malformed, ${summary.blankLines} blank`,
    `  records: ${withItems} with items, ${summary.recordsWithoutItems} without any (data null or an empty batch)`,
    `  items  : ${summary.items} = ${summary.kept} kept + ${droppedItems} dropped; kept: ${summary.inserted} new in the outbox, ` +
      `${summary.duplicates} already there, ${summary.dead} dead`,
  ];
}

/** The replay's counts as the fields of its summary record (`LOG_FORMAT=json`): the summary without its event ids. */
export function replayCountFields(summary: ReplaySummary): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...summary };
  delete fields['eventIds'];
  return fields;
}
