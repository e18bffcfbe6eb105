import type { Command } from 'commander';
import {
  findUnseenParticipants,
  isParticipantSeen,
  linkMembers,
  listMemberLinks,
  unlinkMember,
  type WrittenMemberLink,
} from '../../lake/index.js';
import { countNoun } from '../count-noun.js';
import { readRegularTextFile } from '../read-regular-text-file.js';
import { LinksCsvError, parseLinksCsv } from '../report/parse-links-csv.js';
import { toTerminalText } from '../terminal-text.js';
import { withLakePool } from './database.js';
import { printLine } from './shared.js';

/** Largest member-links CSV read: a line per member of a community is far below it; a wrong file is refused. */
const MAX_MEMBERS_CSV_BYTES = 64 * 1024 * 1024;

/**
 * Registers `wa-lake members link|unlink|list|import` (architecture.md §13): the table that maps
 * a WhatsApp participant (LID or phone JID) to a community member id, so every rollup can be grouped
 * by the member (`member_id`, `person_key` in the engagement views).
 */
export function registerMembersCommands(program: Command): void {
  const members = program.command('members').description('link WhatsApp participants to community member ids');

  members
    .command('link <participant> <memberId>')
    .description('link a participant (LID, phone JID or phone number) to a non-blank member id, e.g. a Discord user id')
    .action(async (participant: string, memberId: string) => {
      const linked = await withLakePool(async (pool) => {
        const links = await linkMembers(pool, [{ participantId: participant, memberId }], 'cli');
        return Promise.all(
          links.map(async (link) => ({ ...link, seen: await isParticipantSeen(pool, link.participantId) }))
        );
      });
      for (const link of linked) {
        const replaced = changedFrom(link);
        printLine(
          `linked ${link.participantId} to ${toTerminalText(link.memberId)}${replaced ? ` (was linked to ${toTerminalText(replaced)})` : ''}`
        );
        if (!link.seen)
          process.stderr.write(
            `warning: the lake has not seen ${link.participantId} yet; the link counts from its first activity (check the JID)\n`
          );
      }
    });

  members
    .command('unlink <participant>')
    .description('remove the link of a participant (LID, phone JID or phone number)')
    .action(async (participant: string) => {
      const removed = await withLakePool((pool) => unlinkMember(pool, participant));
      if (removed.length === 0) printLine(`${participant} had no link`);
      for (const participantId of removed) printLine(`unlinked ${participantId}`);
    });

  members
    .command('list')
    .description('list every link')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const links = await withLakePool((pool) => listMemberLinks(pool));
      if (options.json) {
        printLine(JSON.stringify(links));
        return;
      }
      if (links.length === 0) return printLine('no links');
      // A header names the columns, so the table reads (and pastes into a spreadsheet) without guessing.
      printLine('member_id\tparticipant_id\tsource');
      for (const link of links)
        printLine(`${toTerminalText(link.memberId)}\t${link.participantId}\t${toTerminalText(link.source)}`);
    });

  members
    .command('import <csv>')
    .description('link every row of a CSV file with the columns participant_id,member_id[,name] (header required)')
    .action(async (file: string) => {
      const text = await readRegularTextFile(file, 'the CSV file', MAX_MEMBERS_CSV_BYTES);
      let links: ReturnType<typeof parseLinksCsv>;
      try {
        links = parseLinksCsv(text);
      } catch (err) {
        if (!(err instanceof LinksCsvError)) throw err;
        // Every bad line at once: a long file is fixed in one pass, not one run per line.
        process.stderr.write(
          `wa-lake members import: ${file} has ${countNoun(err.problems.length, 'problem')}; nothing was imported\n` +
            err.problems.map((problem) => `  ${toTerminalText(problem)}\n`).join('')
        );
        process.exitCode = 1;
        return;
      }
      const { written, unseen } = await withLakePool(async (pool) => {
        const rows = await linkMembers(pool, links, 'csv');
        return {
          written: rows,
          unseen: await findUnseenParticipants(
            pool,
            rows.map((link) => link.participantId)
          ),
        };
      });
      const changed = written.filter((link) => changedFrom(link) !== null || isNameChanged(link)).length;
      const unchanged = written.filter(
        (link) => link.replacedMemberId === link.memberId && !isNameChanged(link)
      ).length;
      const added = written.length - unchanged - changed;
      printLine(
        `read ${countNoun(written.length, 'link')} from ${file}: ${added} new, ${changed} changed, ${unchanged} unchanged`
      );
      for (const link of written) {
        const replaced = changedFrom(link);
        if (replaced)
          printLine(
            `  ${link.participantId}: ${toTerminalText(replaced)} replaced by ${toTerminalText(link.memberId)}`
          );
        else if (isNameChanged(link))
          printLine(
            `  ${link.participantId}: name ${link.replacedName === null ? '(none)' : toTerminalText(link.replacedName)} ` +
              `replaced by ${toTerminalText(link.name ?? '')}`
          );
      }
      if (unseen.length > 0) {
        process.stderr.write(
          `warning: the lake has not seen ${countNoun(unseen.length, 'participant')} of ${file} yet; their links count ` +
            `from their first activity (check the JIDs): ${unseen.slice(0, 10).join(', ')}` +
            (unseen.length > 10 ? ` and ${unseen.length - 10} more` : '') +
            '\n'
        );
      }
    });
}

/** The member id a written link took over from, when it differed (relinking to the same id changes nothing). */
function changedFrom(link: WrittenMemberLink): string | null {
  return link.replacedMemberId !== null && link.replacedMemberId !== link.memberId ? link.replacedMemberId : null;
}

/** Same member id, and a name given that differs from the one stored (a name left out keeps the stored one). */
function isNameChanged(link: WrittenMemberLink): boolean {
  return link.replacedMemberId === link.memberId && link.name !== undefined && link.name !== link.replacedName;
}
