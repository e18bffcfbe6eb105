import type { Command } from 'commander';
import { z } from 'zod';
import { loadIngestConfig, startIngestServer } from '../../ingest-api/index.js';
import { createPool, rebuildProjections, runMigrations } from '../../lake/index.js';
import { parseConfig } from '../../common/config-schema.js';
import { runUntilTerminated } from '../run-until-os-signal.js';
import { createProgressPrinter } from '../progress-line.js';
import { requireDatabaseUrl } from './database.js';
import { createCliLogger, isJsonOnlyOutput, printLine } from './shared.js';

/** Registers `wa-lake ingest-api`, `wa-lake migrate` and `wa-lake rebuild` (architecture.md §8–§10). */
export function registerIngestCommands(program: Command): void {
  program
    .command('ingest-api')
    .description('run the HTTP ingest API in front of PostgreSQL')
    .action(async () => {
      const config = loadIngestConfig(process.env);
      const logger = createCliLogger();
      const server = await startIngestServer({ config, logger });
      // For a person at a terminal; a log shipper reads only JSON lines (ADR 0018), and the
      // server's own `listening` log record carries the address.
      if (process.stdout.isTTY) printLine(`ingest API listening on ${server.url}`);
      await runUntilTerminated(() => server.close(), logger);
    });

  program
    .command('migrate')
    .description('apply the lake schema migrations to DATABASE_URL')
    .action(async () => {
      const logger = createCliLogger();
      await runMigrations({ databaseUrl: requireDatabaseUrl(), logger });
      // With LOG_FORMAT=json the `migrations applied` record (with the names applied) is the summary.
      if (!isJsonOnlyOutput()) printLine('migrations applied');
    });

  program
    .command('rebuild')
    .description(
      'rebuild groups, participants, memberships and the message read model from the raw whatsapp_event_logs table'
    )
    .action(async () => {
      // The engagement time zone is stored in the lake; a rebuild is how it changes.
      const { ENGAGEMENT_TIME_ZONE } = parseConfig(
        z.object({ ENGAGEMENT_TIME_ZONE: z.string().min(1).optional() }),
        process.env
      );
      const pool = createPool(requireDatabaseUrl());
      try {
        const result = await rebuildProjections(pool, {
          engagementTimeZone: ENGAGEMENT_TIME_ZONE,
          onProgress: createProgressPrinter('rebuild', 'events'),
        });
        printLine(`projections rebuilt from ${result.events} events, messages from ${result.messageEvents} events`);
        for (const row of result.skipped)
          printLine(
            `skipped event ${row.eventId}: PostgreSQL cannot render it (SQLSTATE ${row.sqlState}); see ADR 0014`
          );
      } finally {
        await pool.end();
      }
    });
}
