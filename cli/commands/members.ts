import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseParticipantIdentifier } from '../../common/participant-identifier.js';
import { isParticipantSeen, linkMembers, listMemberLinks, unlinkMember } from '../../ingest-api/index.js';
import { parseLinksCsv } from '../report/parse-links-csv.js';
import { withLakePool } from './database.js';
import { printLine } from './shared.js';

/**
 * Registers `wa-lake members link|unlink|list|import` (issue #11 item 3, architecture.md §13): the table that maps
 * a WhatsApp participant (LID or phone JID) to a community member id, so every rollup can be grouped
 * by the member (`member_id`, `person_key` in the engagement views).
 */
export function registerMembersCommands(program: Command): void {
  const members = program.command('members').description('link WhatsApp participants to community member ids');

  members
    .command('link <participant> <memberId>')
    .description('link a participant (LID, phone JID or phone number) to a non-blank member id, e.g. a Discord user id')
    .action(async (participant: string, memberId: string) => {
      // The forget parser: the link is keyed by the canonical JID the projections use (`…@c.us` and a
      // device suffix would never match); anything else is refused before the lake is touched.
      const [jid = participant] = parseParticipantIdentifier(participant, 'participant').jids;
      const seen = await withLakePool(async (pool) => {
        await linkMembers(pool, [{ participantId: jid, memberId }], 'cli');
        return isParticipantSeen(pool, jid);
      });
      printLine(`linked ${jid} to ${memberId.trim()}`);
      if (!seen)
        process.stderr.write(
          `warning: the lake has not seen ${jid} yet; the link counts from its first activity (check the JID)\n`
        );
    });

  members
    .command('unlink <participant>')
    .description('remove the link of a participant')
    .action(async (participant: string) => {
      const removed = await withLakePool((pool) => unlinkMember(pool, participant));
      printLine(removed ? `unlinked ${participant}` : `${participant} had no link`);
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
      if (links.length === 0) printLine('no links');
      for (const link of links) printLine(`${link.memberId}\t${link.participantId}\t${link.source}`);
    });

  members
    .command('import <csv>')
    .description('link every row of a CSV file with the columns participant_id,member_id (header required)')
    .action(async (file: string) => {
      const links = parseLinksCsv(await readFile(file, 'utf8'));
      const written = await withLakePool((pool) => linkMembers(pool, links, 'csv'));
      printLine(`imported ${String(written)} links from ${file}`);
    });
}
