import type { Command } from 'commander';
import { loadCollectorConfig } from '../../collector/index.js';
import { createDataConverter } from '../../common/temporal-data-converter.js';
import { listDeadLetters, replayDeadLetters, type ReplayReport, type ReplaySelection } from '../../ops/index.js';
import { countNoun } from '../count-noun.js';
import { shortenAtWord } from '../shorten-at-word.js';
import { toTerminalText } from '../terminal-text.js';
import { integerInRange } from './option-parsers.js';
import { connectTemporalClient, printLine } from './shared.js';

/** Most entries one `dlq list` page shows: the page travels in one query result. */
const MAX_PAGE_SIZE = 1_000;

/** Registers `wa-lake dlq list` and `wa-lake dlq replay` (architecture.md §7, ADR 0002). */
export function registerDlqCommands(program: Command): void {
  const dlq = program.command('dlq').description('dead-lettered events (kept in the dead-letter workflow)');

  dlq
    .command('list')
    .description('list dead-lettered events, oldest first')
    .option('--all', 'include resolved entries')
    .option('--offset <n>', 'start at this entry', integerInRange(0, Number.MAX_SAFE_INTEGER), 0)
    .option('--limit <n>', `entries to show (1–${MAX_PAGE_SIZE})`, integerInRange(1, MAX_PAGE_SIZE), 50)
    .option('--json', 'print the page as JSON')
    .action(async (options: { all?: boolean; offset: number; limit: number; json?: boolean }) => {
      await withClient(async (client) => {
        const page = await listDeadLetters(client, {
          pageSize: options.limit,
          offset: options.offset,
          includeResolved: options.all ?? false,
        });
        if (options.json) return printLine(JSON.stringify(page));
        printLine(deadLetterListHeader(page, options.all === true));
        for (const entry of page.entries) {
          const state = entry.resolvedAt ? `resolved (${toTerminalText(entry.resolution ?? '')})` : 'open';
          printLine(
            `${entry.eventId}  ${entry.deadLetteredAt}  HTTP ${entry.httpStatus ?? '-'}  ${entry.type}  ${state}  ${toTerminalText(shortenAtWord(entry.responseExcerpt, 80))}`
          );
        }
        if (page.nextOffset !== null) printLine(`more: wa-lake dlq list --offset ${page.nextOffset}`);
      });
    });

  dlq
    .command('replay')
    .description('reset the failed deliverEvent workflows to their first workflow task (workflowId stays the event_id)')
    .argument('[eventIds...]', 'event ids to replay')
    .option('--all', 'replay every open dead letter')
    .option('--reason <text>', 'reason recorded in Temporal and in the dead-letter entry', 'wa-lake dlq replay')
    .action(async (eventIds: string[], options: { all?: boolean; reason: string }) => {
      if (!options.all && eventIds.length === 0) throw new Error('name event ids or pass --all');
      // `--all abc` is refused rather than replaying everything and ignoring `abc`: the user meant one of the two.
      if (options.all && eventIds.length > 0)
        throw new Error(`pass either event ids or --all, not both (got --all and ${eventIds.join(' ')})`);
      const selection: ReplaySelection = options.all ? { all: true } : { eventIds };
      await withClient(async (client) => {
        const report = await replayDeadLetters(client, selection, options.reason);
        for (const item of report.replayed) printLine(`replayed ${item.eventId} (new run ${item.newRunId})`);
        for (const item of report.skipped) printLine(`skipped  ${item.eventId} (${item.status})`);
        for (const item of report.failed) printLine(`FAILED   ${item.eventId}: ${item.error}`);
        printLine(describeReplayOutcome(report, options.all === true));
        if (report.failed.length > 0) process.exitCode = 1;
      });
    });
}

async function withClient(
  run: (client: Awaited<ReturnType<typeof connectTemporalClient>>['client']) => Promise<void>
): Promise<void> {
  const config = loadCollectorConfig(process.env);
  const temporal = await connectTemporalClient(
    config.temporal,
    undefined,
    createDataConverter(config.PAYLOAD_ENCRYPTION_KEYS)
  );
  try {
    await run(temporal.client);
  } finally {
    await temporal.close();
  }
}

/** The last line of `dlq replay`: how many were replayed, and says so plainly when none was. */
function describeReplayOutcome(report: ReplayReport, isAll: boolean): string {
  const { replayed, skipped, failed } = report;
  if (replayed.length === 0 && skipped.length === 0 && failed.length === 0) {
    return isAll ? 'nothing was replayed: there is no open dead letter' : 'nothing was replayed';
  }
  const counts = `${replayed.length} replayed, ${skipped.length} skipped, ${failed.length} failed`;
  return replayed.length === 0 ? `nothing was replayed (${counts})` : counts;
}

/**
 * The first line of `dlq list`: what the page is a part of, in words ("listed by this filter"
 * was printed with no filter given).
 */
export function deadLetterListHeader(
  page: { total: number; unresolvedCount: number; entries: readonly unknown[] },
  includesResolved: boolean
): string {
  const open = countNoun(page.unresolvedCount, 'open dead letter');
  if (page.total === 0)
    return includesResolved ? 'no dead letters' : 'no open dead letters (--all shows resolved ones)';
  const scope = includesResolved ? `${countNoun(page.total, 'dead letter')} (${page.unresolvedCount} open)` : open;
  if (page.entries.length === page.total) return scope;
  return `${scope}; this page shows ${page.entries.length}`;
}
