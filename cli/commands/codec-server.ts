import type { Command } from 'commander';
import { loadCodecServerConfig } from '../../codec-server/config.js';
import { startCodecServer } from '../../codec-server/server.js';
import { runUntilTerminated } from '../run-until-os-signal.js';
import { createCliLogger, printLine } from './shared.js';

/** Registers `wa-lake codec-server` (architecture.md §14, ADR 0010). */
export function registerCodecServerCommand(program: Command): void {
  program
    .command('codec-server')
    .description('decrypt Temporal payloads for the Web UI and the temporal CLI (Temporal remote codec protocol)')
    .action(async () => {
      const config = loadCodecServerConfig(process.env);
      const logger = createCliLogger();
      const server = await startCodecServer({ config, logger });
      printLine(
        `codec server listening on ${server.url} (Web UI origins: ${config.CODEC_SERVER_CORS_ORIGINS.join(', ')})`
      );
      await runUntilTerminated(() => server.close(), logger);
    });
}
