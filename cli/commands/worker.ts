import type { Command } from 'commander';
import { loadWorkerConfig, runWorker, startWorkerStatusFile } from '../../worker/index.js';
import { runUntilTerminated } from '../run-until-os-signal.js';
import { createCliLogger } from './shared.js';

/** Registers `wa-lake worker`: the Temporal worker for `deliverEvent` and the dead-letter workflow (architecture.md §7). */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('run the Temporal worker that delivers events to the ingest API')
    .action(async () => {
      const config = loadWorkerConfig(process.env);
      const logger = createCliLogger();
      const worker = await runWorker({ config, logger, installRuntimeLogger: true });
      const statusFile = config.WORKER_STATUS_PATH
        ? startWorkerStatusFile({ path: config.WORKER_STATUS_PATH, getState: () => worker.getState(), logger })
        : null;
      await runUntilTerminated(async () => {
        await worker.stop();
        statusFile?.stop();
      }, logger);
    });
}
