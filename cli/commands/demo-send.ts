import type { Command } from 'commander';
import { claimDemoDataDir } from '../local-stack/demo-data-dir.js';
import { createShutdownSignal } from '../run-until-os-signal.js';
import { DAY_MS, integerInRange, outputPath } from './option-parsers.js';
import { createCliLogger, printLine } from './shared.js';

interface DemoSendOptions {
  dataDir: string;
  timeoutMs: number;
}

/**
 * Registers `wa-lake demo-send` (`npm run demo:send`): runs the whole send path on one
 * machine against a simulated WhatsApp with injected faults, prints a short summary and, as its last
 * stdout line, one JSON object (`requested, accepted, dispatched, wireSends, distinctWireIds, sent,
 * delivered, read, failed, expired, duplicatesOnWire, ok`, …). Exit code 1 when not ok.
 */
export function registerDemoSendCommand(program: Command): void {
  program
    .command('demo-send')
    .description('send messages through the whole local send path against a simulated WhatsApp, with faults')
    .option(
      '--data-dir <dir>',
      'state folder: new, empty, or made by an earlier demo (emptied at start)',
      outputPath,
      '.data/demo-send'
    )
    .option(
      '--timeout-ms <ms>',
      'how long each phase may wait for the expected states (ms, at most a day)',
      integerInRange(1, DAY_MS),
      60_000
    )
    .action(async (options: DemoSendOptions) => {
      // The injected faults log warnings by design (failed dispatch attempts); the summary tells the story.
      const logger = createCliLogger('error');
      await claimDemoDataDir(options.dataDir, logger);
      // Loaded only now: a refused data folder never pays for the stack's modules (Temporal, Fastify, …).
      const [{ runSendDemo }, { formatSendDemoSummary }] = await Promise.all([
        import('../demo-send/run-send-demo.js'),
        import('../demo-send/send-demo-summary.js'),
      ]);
      const shutdown = createShutdownSignal(logger);
      try {
        const { summary, messages } = await runSendDemo({
          dataDir: options.dataDir,
          env: process.env,
          logger,
          timeoutMs: options.timeoutMs,
          abortSignal: shutdown.signal,
        });
        process.stdout.write(formatSendDemoSummary(summary, messages));
        printLine(JSON.stringify(summary));
        process.exitCode = summary.ok ? 0 : 1;
      } finally {
        shutdown.dispose();
      }
    });
}
