import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_OUTBOX_PATH, resolveErasureKey } from '../../common/erasure-key.js';
import { eventIdFromName } from '../../collector/index.js';
import { isWellFormedGroupJid } from '../../common/whatsapp-jid.js';
import {
  DATE_ORDERS,
  exportTitleOfFileName,
  importChatExport,
  isExportGroupKnown,
  NoChatMessagesError,
  readExportDays,
  readExportSenders,
  resolveExportTimeZone,
  type ChatExportImport,
  type DateOrder,
  type ExportDay,
  type ExportSenderSummary,
} from '../../lake/index.js';
import {
  readChatExportFile,
  UnusableChatExportError,
  type ChatExportFile,
} from '../import-export/read-chat-export-file.js';
import { countNoun } from '../count-noun.js';
import { toTerminalText } from '../terminal-text.js';
import { spans } from './coverage.js';
import { withLakePool } from './database.js';
import { engagementZoneWarning } from './engagement-zone-warning.js';
import { printLine } from './shared.js';

/** How many unreadable lines are listed one by one; the rest are counted. */
const LISTED_UNREADABLE_LINES = 20;

const PRIVACY_WARNING =
  "warning: a chat export holds other people's messages and phone numbers (personal data!). The lake keeps them " +
  'like captured messages: retention redacts their text, `wa-lake forget` erases a member; media files are never ' +
  'stored. Import only chats your community agreed to, and delete the export file afterwards.\n';

/**
 * Thrown before anything is stored when `--group` names a group the lake has never seen and `--force` was not
 * given (ADR 0023): a mistyped JID would make a phantom group in every report.
 */
export class UnknownExportGroupError extends Error {
  override readonly name = 'UnknownExportGroupError';
  constructor(readonly groupJid: string) {
    super(
      `refused: the lake has never seen the group ${groupJid} (no group row, no captured or imported message), so ` +
        'nothing was imported; check the JID against `wa-lake coverage`, or pass --force to import the export as ' +
        'a group of its own'
    );
  }
}

function parseGroupJid(value: string): string {
  if (!isWellFormedGroupJid(value)) throw new InvalidArgumentError('expected a group JID such as 120363…@g.us');
  return value;
}

function parseDateOrder(value: string): DateOrder {
  const order = DATE_ORDERS.find((known) => known === value);
  if (order === undefined) throw new InvalidArgumentError(`expected ${DATE_ORDERS.join(' or ')}`);
  return order;
}

/** What the output says about the day/month order (ADR 0023): an assumed one names the option that changes it. */
function describeDateOrder(imported: ChatExportImport): string {
  const { order, basis, dayFirstOnly, monthFirstOnly } = imported.dateOrder;
  if (basis === 'option') return `dates read ${order} (--date-order)`;
  if (basis === 'assumed')
    return (
      `dates read ${order}: ASSUMED, every date of the file exists both day-first and month-first; ` +
      `if that is wrong, import again with --date-order ${order === 'day-first' ? 'month-first' : 'day-first'}`
    );
  const deciding = order === 'day-first' ? dayFirstOnly : monthFirstOnly;
  return `dates read ${order} (${countNoun(deciding, 'date')} exist only ${order})`;
}

interface ImportExportOptions {
  group: string;
  timeZone?: string;
  dateOrder?: DateOrder;
  force?: boolean;
  unresolved?: boolean;
  json?: boolean;
}

/** The lines `wa-lake import-export` prints about one import (README.md, docs/engagement.md "Chat exports"). */
export function formatImport(
  file: string,
  read: ChatExportFile,
  imported: ChatExportImport,
  days: readonly ExportDay[]
): string[] {
  const media = Object.entries(read.media).map(([kind, count]) => `${String(count)} ${kind}`);
  const lines = [
    `read ${toTerminalText(file)}${read.chatEntry === null ? '' : ` (${toTerminalText(read.chatEntry)}; media files counted, not stored: ${media.join(', ') || 'none'})`}: ` +
      `${countNoun(imported.lines, 'line')}, ${countNoun(imported.messages, 'message')} (${String(imported.byKind.text)} text, ` +
      `${String(imported.byKind.edited)} edited, ${String(imported.byKind.media)} media, ` +
      `${String(imported.byKind.deleted)} deleted), ` +
      `${countNoun(imported.systemLines, 'system line')}; times read in ${imported.timeZone}`,
    describeDateOrder(imported),
    `stored ${countNoun(imported.inserted, 'new message')}, ${String(imported.messages - imported.inserted)} already in the lake`,
  ];
  for (const replaced of imported.replacedReadings)
    lines.push(
      `replaced ${countNoun(replaced.messages, 'message')} an earlier import of this file stored with dates read ` +
        `${replaced.dateOrder}: the lake counts this reading only`
    );
  for (const earlier of imported.earlierTimeZones)
    lines.push(
      `note: ${countNoun(earlier.messages, 'message')} of this file ${earlier.messages === 1 ? 'was' : 'were'} ` +
        `imported before with times read in ${earlier.timeZone}, not ${imported.timeZone}; they keep those times ` +
        "(the first import's zone wins)"
    );
  if (imported.unreadable.length > 0) {
    lines.push(`skipped ${countNoun(imported.unreadable.length, 'unreadable line')}:`);
    for (const line of imported.unreadable.slice(0, LISTED_UNREADABLE_LINES))
      lines.push(`  line ${String(line.line)}: ${line.reason}`);
    if (imported.unreadable.length > LISTED_UNREADABLE_LINES)
      lines.push(`  … and ${String(imported.unreadable.length - LISTED_UNREADABLE_LINES)} more (--json lists all)`);
  }
  const counted = days.filter((day) => !day.isObserved).map((day) => day.day);
  const observed = days.filter((day) => day.isObserved).map((day) => day.day);
  // Every import of the group, not this file alone: the days are the group's.
  if (counted.length > 0) lines.push(`days of this group counted from exports: ${spans(counted)}`);
  if (observed.length > 0)
    lines.push(`days of this group the lake observed (exported messages not counted): ${spans(observed)}`);
  return lines;
}

/** The lines about the senders: how they resolved, and each unresolved one with the command that links it. */
export function formatSenders(senders: ExportSenderSummary, isListingUnresolved: boolean): string[] {
  const ways = Object.entries(senders.messagesBy).map(([way, count]) => `${String(count)} ${way}`);
  const lines = [`exported messages of this group by how their sender resolved: ${ways.join(', ') || 'none'}`];
  const unresolvedMessages = senders.unresolved.reduce((sum, sender) => sum + sender.messages, 0);
  if (senders.unresolved.length > 0 && !isListingUnresolved)
    lines.push(
      `  ${countNoun(senders.unresolved.length, 'sender')} unresolved (${countNoun(unresolvedMessages, 'message')}): ` +
        '--unresolved lists them'
    );
  if (isListingUnresolved)
    for (const sender of senders.unresolved)
      lines.push(
        `  ${toTerminalText(sender.sender)} (${countNoun(sender.messages, 'message')}): ` +
          `wa-lake members link '${toTerminalText(sender.participantKey)}' MEMBER_ID`
      );
  return lines;
}

/**
 * Registers `wa-lake import-export [FILE] --group JID [--time-zone ZONE] [--date-order ORDER] [--unresolved] [--json]` (ADR 0023,
 * ADR 0023): imports a WhatsApp "Export chat" file (`.txt` or `.zip`) into the lake, counted once and never over a
 * day the lake observed; without FILE, `--unresolved` lists the senders of the group's exported messages that
 * no participant is known for.
 */
export function registerImportExportCommand(program: Command): void {
  program
    .command('import-export [file]')
    .description("import a WhatsApp 'Export chat' file (.txt or .zip) of one group: messages the lake did not see")
    .requiredOption('--group <jid>', 'the group the export is of', parseGroupJid)
    .option(
      '--time-zone <zone>',
      "the exporting phone's zone: IANA name or ±HH:MM (default: the lake's engagement time zone, which " +
        '`wa-lake rebuild` stores from ENGAGEMENT_TIME_ZONE)'
    )
    .option(
      '--date-order <order>',
      'day-first or month-first: how the export writes dates (default: decided from its dates)',
      parseDateOrder
    )
    .option('--force', 'import into a group the lake has never seen (no group row, no message)')
    .option('--unresolved', 'list the senders no participant is known for, with the command that links each')
    .option('--json', 'print the outcome as JSON')
    .action(async (file: string | undefined, options: ImportExportOptions) => {
      if (file === undefined && !options.unresolved)
        throw new InvalidArgumentError('give the export FILE, or --unresolved to list unresolved senders');
      // The parser builds dates in the process's zone; UTC has no daylight-saving gap that would move a written time.
      process.env['TZ'] = 'UTC';
      if (file !== undefined) process.stderr.write(PRIVACY_WARNING);
      const read = file === undefined ? null : await readChatExportFile(file);
      await withLakePool(async (pool) => {
        const zoneWarning = options.timeZone === undefined ? await engagementZoneWarning(pool, process.env) : null;
        if (zoneWarning !== null) process.stderr.write(zoneWarning);
        if (read !== null && options.force !== true && !(await isExportGroupKnown(pool, options.group)))
          throw new UnknownExportGroupError(options.group);
        const imported =
          read === null
            ? null
            : await importChatExport(pool, {
                groupJid: options.group,
                text: read.text,
                timeZone: await resolveExportTimeZone(pool, options.timeZone),
                eventIdOf: eventIdFromName,
                // The key `forget` uses (ADR 0027): `ERASURE_KEY`, else the dev stack's file beside the outbox.
                erasureKey: resolveErasureKey(process.env, process.env['OUTBOX_PATH'] ?? DEFAULT_OUTBOX_PATH),
                fileTitle: exportTitleOfFileName(file ?? '') ?? exportTitleOfFileName(read.chatEntry ?? ''),
                ...(options.dateOrder === undefined ? {} : { dateOrder: options.dateOrder }),
              }).catch((err: unknown) => {
                // The lake does not know the file: the error names it here, as every other refusal of the file does.
                throw err instanceof NoChatMessagesError && file !== undefined
                  ? new UnusableChatExportError(file, err.message)
                  : err;
              });
        const days = await readExportDays(pool, options.group);
        const senders = await readExportSenders(pool, options.group);
        if (options.json)
          return printLine(JSON.stringify({ file: file ?? null, media: read?.media ?? null, imported, days, senders }));
        if (file !== undefined && read !== null && imported !== null)
          for (const line of formatImport(file, read, imported, days)) printLine(line);
        for (const line of formatSenders(senders, options.unresolved === true)) printLine(line);
      });
    });
}
