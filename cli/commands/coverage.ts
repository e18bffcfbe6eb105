import { InvalidArgumentError, type Command } from 'commander';
import { isWellFormedGroupJid } from '../../common/whatsapp-jid.js';
import { assertGroupInLake, readCoverageDays, readExportCountedDays, type GroupCoverage } from '../../lake/index.js';
import { withLakePool } from './database.js';
import { printLine } from './shared.js';

/** `--group`: a well-formed group JID (`wa-lake coverage`, `wa-lake backfill`). */
export function parseGroupJid(value: string): string {
  if (!isWellFormedGroupJid(value)) throw new InvalidArgumentError('expected a group JID such as 120363…@g.us');
  return value;
}

/** Consecutive days as `A … B`, single days as `A`, joined by `, `. */
export function spans(days: readonly string[]): string {
  const out: string[] = [];
  let start: string | undefined;
  let last: string | undefined;
  const flush = (): void => {
    if (start !== undefined) out.push(start === last ? start : `${start} … ${last ?? ''}`);
  };
  for (const day of days) {
    const next = last === undefined ? undefined : new Date(Date.parse(`${last}T00:00:00Z`) + 86_400_000);
    if (next && next.toISOString().slice(0, 10) === day) {
      last = day;
      continue;
    }
    flush();
    start = day;
    last = day;
  }
  flush();
  return out.join(', ');
}

/** The lines `wa-lake coverage` prints for one group (docs/engagement.md "Coverage"). */
export function formatGroupCoverage(group: GroupCoverage, exportDays: readonly string[] = []): string[] {
  const of = (coverage: string) => group.days.filter((d) => d.coverage === coverage).map((d) => d.day);
  const [full, partly, none] = [of('full'), of('partly'), of('none')];
  const first = group.days[0]?.day ?? '-';
  const last = group.days.at(-1)?.day ?? '-';
  const lines = [
    `${group.groupJid}  ${first} … ${last}: ${full.length} fully observed, ${partly.length} partly observed, ${none.length} not observed`,
  ];
  if (partly.length > 0) lines.push(`  partly observed: ${spans(partly)}`);
  if (none.length > 0) lines.push(`  not observed:    ${spans(none)}`);
  if (exportDays.length > 0) lines.push(`  counted from chat exports (ADR 0023): ${spans(exportDays)}`);
  return lines;
}

/**
 * Registers `wa-lake coverage [--group JID] [--json]` (ADR 0016): per group, the local days (engagement
 * time zone) the lake observed fully, partly or not at all, from the collector's own session events and beats.
 */
export function registerCoverageCommand(program: Command): void {
  program
    .command('coverage')
    .description('per group: days fully observed, partly observed and not observed by the collectors')
    .option('--group <jid>', 'only this group', parseGroupJid)
    .option('--json', 'print days and observed periods as JSON')
    .action(async (options: { group?: string; json?: boolean }) => {
      const [groups, exportDays] = await withLakePool(async (pool) => {
        // An unknown group is refused as `wa-lake report` refuses it: exit 1, the same words.
        if (options.group) await assertGroupInLake(pool, options.group);
        return [
          await readCoverageDays(pool, options.group ? { groupJid: options.group } : {}),
          await readExportCountedDays(pool, options.group ?? null),
        ] as const;
      });
      if (options.json)
        return printLine(
          JSON.stringify(groups.map((group) => ({ ...group, exportDays: exportDays.get(group.groupJid) ?? [] })))
        );
      if (groups.length === 0)
        return printLine(options.group ? `no data for ${options.group}` : 'no groups in the lake');
      for (const group of groups)
        for (const line of formatGroupCoverage(group, exportDays.get(group.groupJid))) printLine(line);
    });
}
