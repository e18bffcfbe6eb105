import type { Command } from 'commander';
import { createPool } from '../../lake/index.js';
import { buildDashboardApp } from '../dashboard/dashboard-app.js';
import { loadDashboardConfig } from '../dashboard/dashboard-config.js';
import { runUntilTerminated } from '../run-until-os-signal.js';
import { explainListenError } from '../../common/listen-error.js';
import { createCliLogger, isJsonOnlyOutput, printLine } from './shared.js';

/**
 * Registers `wa-lake dashboard` (ADR 0025, docs/engagement.md "Dashboard"): the report's pages with group,
 * period and member filters and a page per member, on `DASHBOARD_HOST:DASHBOARD_PORT`, behind `DASHBOARD_TOKEN`.
 */
export function registerDashboardCommand(program: Command): void {
  program
    .command('dashboard')
    .summary('serve the engagement report as pages: group, period and member filters, a page per member')
    // The settings are environment variables: the command's own help names them (dashboard-config.ts).
    .description(
      'serve the engagement report as pages: group, period and member filters, a page per member\n\n' +
        'Environment:\n' +
        '  DASHBOARD_TOKEN   required, 16+ characters: the Basic auth password (any user)\n' +
        '                    or bearer token every request must carry\n' +
        '  DATABASE_URL      required: the lake\n' +
        '  DASHBOARD_HOST    address to listen on (default 127.0.0.1)\n' +
        '  DASHBOARD_PORT    port to listen on (default 8687; 0 picks a free one)\n' +
        '  DASHBOARD_REPORT_MAX_AGE_SECONDS\n' +
        '                    how old the served numbers may be, in seconds (default 300;\n' +
        '                    0 counts every page when asked)'
    )
    .action(async () => {
      const config = loadDashboardConfig(process.env);
      const logger = createCliLogger();
      const pool = createPool(config.DATABASE_URL, { max: 4, logger });
      const app = buildDashboardApp({
        pool,
        token: config.DASHBOARD_TOKEN,
        logger,
        reportMaxAgeMs: config.DASHBOARD_REPORT_MAX_AGE_SECONDS * 1000,
      });
      try {
        await app.listen({ host: config.DASHBOARD_HOST, port: config.DASHBOARD_PORT });
      } catch (err) {
        await app.close().catch(() => undefined);
        await pool.end();
        throw explainListenError(
          err,
          'dashboard',
          config.DASHBOARD_HOST,
          config.DASHBOARD_PORT,
          'DASHBOARD_HOST/DASHBOARD_PORT'
        );
      }
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : config.DASHBOARD_PORT;
      const host = config.DASHBOARD_HOST.includes(':') ? `[${config.DASHBOARD_HOST}]` : config.DASHBOARD_HOST;
      // With LOG_FORMAT=json (the image) only records: Fastify's `Server listening` record carries the address.
      if (!isJsonOnlyOutput())
        printLine(
          `dashboard listening on http://${host}:${String(port)} (Basic auth: any user, DASHBOARD_TOKEN as password)`
        );
      await runUntilTerminated(async () => {
        await app.close();
        await pool.end();
      }, logger);
    });
}
