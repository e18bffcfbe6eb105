import { InvalidArgumentError, type Command } from 'commander';
import { BackfillStore, loadCollectorConfig, readCollectorStatus } from '../../collector/index.js';
import { assertGroupInLake, readOldestMessageSince, UnknownReportGroupError } from '../../lake/index.js';
import { isReportDay, REPORT_DAY_RULE } from '../report/report-day.js';
import { toTerminalLine } from '../terminal-text.js';
import { parseGroupJid } from './coverage.js';
import { withLakePool } from './database.js';
import { failLine, printLine } from './shared.js';

/**
 * `YYYY-MM-DD` → epoch ms of that day's 00:00 UTC: a day the report accepts (`isReportDay`, from 2009 on) and not
 * after today (UTC), since WhatsApp holds no history of days to come.
 * @throws InvalidArgumentError for anything else (commander prints it and exits 1).
 */
export function parseSinceDay(value: string, now: Date = new Date()): number {
  if (!isReportDay(value)) throw new InvalidArgumentError(`expected a date as ${REPORT_DAY_RULE}`);
  const today = now.toISOString().slice(0, 10);
  if (value > today)
    throw new InvalidArgumentError(`${value} is in the future; the last day it may name is today (${today}, UTC)`);
  return Date.parse(`${value}T00:00:00Z`);
}

/**
 * The warning `wa-lake backfill` prints when the collector status file of the outbox says its last collector is a
 * replay (`wa-lake dev --replay`, `wa-lake replay`), which never asks WhatsApp; null otherwise. A warning, not a
 * refusal: nothing in the folder tells whether a live collector will run with this outbox later (a `wa-lake dev`
 * without `--replay` on the same folder does, and then asks), ADR 0016 "Backfill feedback".
 */
export function describeReplayOutbox(statusPath: string, outboxPath: string): string | null {
  const status = readCollectorStatus(statusPath);
  if (status?.mode !== 'replay') return null;
  const when = status.stoppedAt === null ? 'is a replay' : `was a replay (stopped ${status.stoppedAt})`;
  return (
    `the collector of ${outboxPath} ${when}, which never asks WhatsApp: the backfill waits until a live collector ` +
    '(`wa-lake collector`, or `wa-lake dev` without --replay) runs with this outbox'
  );
}

/**
 * Registers `wa-lake backfill --group JID --since DATE` (ADR 0016): writes a backfill into the collector's
 * outbox file (`OUTBOX_PATH`); the running collector asks WhatsApp, paced, for the history before the oldest
 * message the lake holds since DATE (read from `DATABASE_URL` when set; otherwise before the next message the
 * collector stores for the group), page by page, back to DATE 00:00 UTC. With `DATABASE_URL` set, a group the lake
 * has never seen (`assertGroupInLake`, the rule of `wa-lake report` and `wa-lake coverage`) is refused: exit 1,
 * nothing queued. `wa-lake status` shows the backfill's state afterwards.
 */
export function registerBackfillCommand(program: Command): void {
  program
    .command('backfill')
    .description('ask WhatsApp (through the running collector) for a group history back to a date')
    .requiredOption('--group <jid>', 'the group', parseGroupJid)
    .requiredOption('--since <date>', 'first day to fill (YYYY-MM-DD, UTC, 2009-01-01 to today)', (value: string) =>
      parseSinceDay(value)
    )
    .action(async (options: { group: string; since: number }) => {
      const config = loadCollectorConfig(process.env);
      let cursor: Awaited<ReturnType<typeof readOldestMessageSince>> = null;
      if (process.env['DATABASE_URL']) {
        try {
          cursor = await withLakePool(async (pool) => {
            await assertGroupInLake(pool, options.group);
            return readOldestMessageSince(pool, options.group, options.since);
          });
        } catch (err) {
          if (!(err instanceof UnknownReportGroupError)) throw err;
          return failLine(`${err.message}; nothing was queued`);
        }
      }
      const store = BackfillStore.open({ path: config.OUTBOX_PATH });
      try {
        const backfill = store.request(options.group, options.since, cursor);
        const from = backfill.cursor
          ? `before ${new Date(backfill.cursor.tsMs).toISOString()}`
          : 'before the next message the collector stores for the group';
        // An unfinished backfill keeps the earlier of the two days: say what this request asked, then what runs.
        const reach =
          backfill.sinceMs < options.since
            ? `; the unfinished backfill of the group already goes back to ${new Date(backfill.sinceMs).toISOString()}`
            : '';
        printLine(
          `backfill of ${options.group} queued in ${config.OUTBOX_PATH}: history ${from}, back to ` +
            `${new Date(options.since).toISOString()}${reach}; the collector asks at most once per ` +
            `${String(config.BACKFILL_REQUEST_INTERVAL_MS)} ms; \`wa-lake status\` shows how it goes`
        );
      } finally {
        store.close();
      }
      const replay = describeReplayOutbox(config.COLLECTOR_STATUS_PATH, config.OUTBOX_PATH);
      if (replay !== null) process.stderr.write(`wa-lake: warning: ${toTerminalLine(replay)}\n`);
    });
}
