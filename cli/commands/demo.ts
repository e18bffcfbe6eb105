import { join } from 'node:path';
import type { Command } from 'commander';
import { packageRoot } from '../../common/package-root.js';
import { claimDemoDataDir } from '../local-stack/demo-data-dir.js';
import { describeUnreplayableCapture } from '../local-stack/describe-unreplayable-capture.js';
import { DAY_MS, integerInRange, outputPath } from './option-parsers.js';
import { createCliLogger } from './shared.js';

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
    .option(
      '--data-dir <dir>',
      'state folder: new, empty, or made by an earlier demo (emptied at start)',
      outputPath,
      '.data/demo'
    )
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
      // Loaded only now: a refused capture or folder never pays for the stack's modules (Temporal, Fastify, …).
      const { runDemo } = await import('../demo/run-demo.js');
      await runDemo({ ...options, capture }, logger);
    });
}
