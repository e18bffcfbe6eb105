import { parseString, type Message } from 'whatsapp-chat-parser';
import { decideDateOrder, type DateOrderDecision } from './date-order.js';
import { findExportGroupName, findGroupAuthors, isSystemLine } from './system-lines.js';
import {
  calendarDateOf,
  ordersValidFor,
  readWrittenTimestamp,
  type DateOrder,
  type WrittenTimestamp,
} from './written-timestamp.js';

/**
 * What an exported message is: its own text, a text edited after it was sent (WhatsApp's marker removed), a media
 * file (attached or omitted), or a deleted message.
 */
export type ExportedMessageKind = 'text' | 'edited' | 'media' | 'deleted';

/** One message of a chat export, as written (ADR 0023). */
export interface ExportedMessage {
  /** 1-based number of its first line in the file. */
  line: number;
  /** Wall-clock time as written, `YYYY-MM-DDTHH:MM:SS`, in the zone of the phone that exported. */
  wallClock: string;
  /** The sender as written, without bidi marks and the `~` WhatsApp puts before a name that is no contact. */
  sender: string;
  /** The text, continuation lines joined with `\n` (readable lines only). */
  text: string;
  kind: ExportedMessageKind;
  /** The attached file's name (a `.zip` export with media), else null. */
  attachment: string | null;
}

/** Why a line was skipped. */
export type UnreadableReason =
  | 'before the first message'
  | 'time out of range'
  | 'impossible date'
  | "impossible date in the file's day/month order"
  | 'impossible time'
  | 'in the future'
  | 'time that does not exist in the time zone (daylight-saving gap)'
  | 'message text over 4 MiB'
  | 'undecodable characters'
  | 'looks like a message header but is none';

/** A line the import could not read: reported with its number, skipped; nothing else is lost. */
export interface UnreadableLine {
  line: number;
  reason: UnreadableReason;
}

/** The whole file, read. */
export interface ParsedChatExport {
  messages: ExportedMessage[];
  /** System lines (joins, leaves, subject changes, the end-to-end notice): read, not messages. */
  systemLines: number;
  unreadable: UnreadableLine[];
  /** Lines in the file, blank ones included, a final line break ending the last one (as `wc -l` counts). */
  lines: number;
  /** The day/month order the dates were read in, and how it was decided. */
  dateOrder: DateOrderDecision;
  /** The group's name as the file writes it (iOS: the author of its system lines), else null. */
  groupName: string | null;
}

/** How to read an export. */
export interface ParseChatExportOptions {
  /** The day/month order (`--date-order`); by default decided from the file's dates (`decideDateOrder`). */
  dateOrder?: DateOrder;
  /** The time a message may not be later than (one day of tolerance added); default: the clock's. */
  now?: Date;
  /** The lake's known subject of the group: lines by an author of that name that read as system lines are. */
  groupSubjects?: readonly string[];
}

const LINE_BREAK = /\r\n|\r|\n/;
// U+FFFD is what a decoder makes of bytes that are no UTF-8; C0 controls other than tab never occur in a chat.
// eslint-disable-next-line no-control-regex
const UNDECODABLE = /[\uFFFD\u0000-\u0008\u000B\u000C\u000E-\u001F]/;
// A line that starts like a timestamp (date, then an hour) which the parser did not take as a header: a header cut
// short or garbled. A message's own line starting with a bare date ("12/03 meeting") has no hour after it.
const HEADER_LIKE = /^[\u200E\u200F]*\[?\d{1,4}[-/.]\s?\d{1,4}[-/.]\s?\d{1,4}[,.]?\s+\d{1,2}[:.]/;
const BIDI_MARKS = /[\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
/**
 * The longest message text the import stores, in UTF-8 bytes: the ingest's body limit (`INGEST_BODY_LIMIT_BYTES`,
 * 4 MiB by default), so no exported message is larger than a captured one could be. A longer one is an unreadable
 * line: a PostgreSQL value that size fails its whole batch.
 */
export const MAX_EXPORTED_MESSAGE_BYTES = 4 * 1024 * 1024;

// WhatsApp has existed since 2009; a time before is a misread date.
const FIRST_YEAR = 2009;
// A message dated later than now by more than this is misread: a day covers the zones ahead of any clock.
const FUTURE_TOLERANCE_MS = 24 * 3_600_000;

// Phrases WhatsApp writes in place of a message (English and Portuguese, Android and iOS), lower case, without
// bidi marks and a final full stop.
const DELETED_PHRASES = new Set([
  'this message was deleted',
  'you deleted this message',
  'esta mensagem foi apagada',
  'você apagou esta mensagem',
  'mensagem apagada',
]);
// iOS opens a header with `[`, Android with the bare date.
const IOS_HEADER = /^[\u200E\u200F]*\[/;
// What WhatsApp appends to an edited message's text (Android and iOS, English and Portuguese). It is no part of
// the text: the same message exported before its edit was seen has no marker.
const EDITED_MARKER =
  /[\s\u200E\u200F]*<(?:this message was edited|mensagem editada|esta mensagem foi editada)>[\s\u200E\u200F]*$/i;
const MEDIA_OMITTED =
  /^(?:<\s*(?:media omitted|mídia oculta|arquivo de mídia oculto|m[ií]dia omitida)\s*>|(?:image|video|audio|sticker|gif|document|contact card) omitted|(?:imagem|vídeo|video|áudio|audio|figurinha|gif|documento|cartão de contato) (?:omitid[oa]|ocultad[oa]))$/;

/** The sender as a person reads it: no bidi marks, no `~ ` before a name that is no contact, trimmed. */
export function normalizeExportSender(author: string): string {
  return author
    .replace(BIDI_MARKS, '')
    .replace(/^[~\s\u00A0\u202F]+/, '')
    .replace(/[\s\u00A0\u202F]+$/, '');
}

function kindOf(text: string, attachment: string | null): ExportedMessageKind {
  if (attachment !== null) return 'media';
  const plain = text.replace(BIDI_MARKS, '').trim().replace(/\.$/, '').toLowerCase();
  if (DELETED_PHRASES.has(plain)) return 'deleted';
  return MEDIA_OMITTED.test(plain) ? 'media' : 'text';
}

/**
 * The wall clock of a header, `YYYY-MM-DDTHH:MM:SS`, from its numbers as written (never from the parser's Date,
 * which rolls `31/02` over to March and `25:00` to the next day), or why the line is unreadable: a date that does
 * not exist in `order` (ADR 0023), a time that does not exist, a year before WhatsApp, a time after `latest`.
 */
function wallClockOf(
  written: WrittenTimestamp | null,
  order: DateOrder,
  latest: string
): { wallClock: string } | { reason: UnreadableReason } {
  if (written === null) return { reason: 'looks like a message header but is none' };
  const date = calendarDateOf(written, order);
  if (date === null)
    return {
      reason: ordersValidFor(written).length > 0 ? "impossible date in the file's day/month order" : 'impossible date',
    };
  if (written.time === null) return { reason: 'impossible time' };
  if (written.year < FIRST_YEAR) return { reason: 'time out of range' };
  const wallClock = `${date}T${written.time}`;
  return wallClock > latest ? { reason: 'in the future' } : { wallClock };
}

/** A line `whatsapp-chat-parser` takes as a message header, with its timestamp as written. */
interface Header {
  parsed: Message;
  written: WrittenTimestamp | null;
}

function headerOf(line: string): Header | null {
  // Any `daysFirst` spares the parser its own guess: the date is read from `written`, not from its Date.
  const parsed: Message | undefined = parseString(line, { daysFirst: true, parseAttachments: true })[0];
  return parsed === undefined ? null : { parsed, written: readWrittenTimestamp(line) };
}

interface OpenMessage {
  message: ExportedMessage | null;
}

/** Why a line the parser took as no header cannot continue the message before it; null when it can. */
function continuationProblem(line: string, isAfterHeader: boolean): UnreadableReason | null {
  if (line.trim() === '') return null;
  if (!isAfterHeader) return 'before the first message';
  if (UNDECODABLE.test(line)) return 'undecodable characters';
  return HEADER_LIKE.test(line) ? 'looks like a message header but is none' : null;
}

/** What holds for the whole file: its day/month order, the names its system lines are written under, the latest time. */
function readFileContext(
  lines: readonly string[],
  headers: ReadonlyArray<Header | null>,
  options: ParseChatExportOptions
): { dateOrder: DateOrderDecision; groupAuthors: Set<string>; groupName: string | null; latest: string } {
  const dateOrder = decideDateOrder(
    lines.flatMap((line, index) => {
      const written = headers[index]?.written;
      return written ? [{ text: line, line: index + 1, written }] : [];
    }),
    options.dateOrder
  );
  const authored = headers.map((header) => ({
    author: header?.parsed.author == null ? null : normalizeExportSender(header.parsed.author),
    text: header?.parsed.message ?? '',
  }));
  const isIos = lines.some((line, index) => headers[index] != null && IOS_HEADER.test(line));
  const groupAuthors = findGroupAuthors(authored, isIos, options.groupSubjects ?? []);
  const groupName = isIos ? findExportGroupName(authored) : null;
  const latest = new Date((options.now ?? new Date()).getTime() + FUTURE_TOLERANCE_MS).toISOString().slice(0, 19);
  return { dateOrder, groupAuthors, groupName, latest };
}

/**
 * Once every line is read: trailing blank lines and the "edited" marker leave the texts, kinds are set, and a text
 * over {@link MAX_EXPORTED_MESSAGE_BYTES} becomes an unreadable line.
 */
function finishMessages(result: ParsedChatExport): void {
  for (const message of result.messages) {
    const text = message.text.replace(/\n+$/, '');
    message.text = text.replace(EDITED_MARKER, '');
    message.kind = message.text === text ? kindOf(text, message.attachment) : 'edited';
  }
  // A string's UTF-8 is at most three bytes per UTF-16 unit: only a long text is measured.
  const isOverLimit = (message: ExportedMessage): boolean =>
    message.text.length > MAX_EXPORTED_MESSAGE_BYTES / 3 &&
    Buffer.byteLength(message.text, 'utf8') > MAX_EXPORTED_MESSAGE_BYTES;
  for (const message of result.messages.filter(isOverLimit))
    result.unreadable.push({ line: message.line, reason: 'message text over 4 MiB' });
  result.messages = result.messages.filter((message) => !isOverLimit(message));
  result.unreadable.sort((a, b) => a.line - b.line);
}

/**
 * Reads a WhatsApp "Export chat" text (Android or iOS, any locale the parser reads: English, Portuguese, …, 12- or
 * 24-hour clock) with `whatsapp-chat-parser`, one line at a time so that every message keeps its line number and
 * every line the parser cannot place is reported: a line before the first message, a message header whose date or
 * time does not exist as written or is out of range, a line with undecodable characters, and a line that starts
 * like a header the parser did not take (ADR 0023). A message's other lines are continuation lines, as the
 * parser joins them. The day/month order is decided once for the file ({@link decideDateOrder}).
 *
 * @param text - the decoded file (UTF-8, BOM allowed).
 * @returns messages in file order, system lines counted, unreadable lines with their numbers.
 * @throws DateOrderConflictError when the dates cannot tell the day/month order and none was given;
 *   DateOrderContradictionError when `options.dateOrder` makes a date impossible that exists in the other order.
 */
export function parseChatExport(text: string, options: ParseChatExportOptions = {}): ParsedChatExport {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.split(LINE_BREAK);
  // A final line break ends the last line; it starts no line of its own (an empty file has no line).
  if (lines.at(-1) === '') lines.pop();
  const headers = lines.map(headerOf);
  const { dateOrder, groupAuthors, groupName, latest } = readFileContext(lines, headers, options);
  const result: ParsedChatExport = {
    messages: [],
    systemLines: 0,
    unreadable: [],
    lines: lines.length,
    dateOrder,
    groupName,
  };
  // Set once a header was read: continuation lines of a skipped header are skipped with it.
  let open: OpenMessage | null = null;
  for (const [index, line] of lines.entries()) {
    const number = index + 1;
    const header = headers[index];
    if (header === null || header === undefined) {
      const reason = continuationProblem(line, open !== null);
      if (reason !== null) result.unreadable.push({ line: number, reason });
      else if (open?.message) open.message.text += `\n${line}`;
      continue;
    }
    open = { message: null };
    const time = wallClockOf(header.written, dateOrder.order, latest);
    if ('reason' in time || UNDECODABLE.test(line)) {
      result.unreadable.push({ line: number, reason: 'reason' in time ? time.reason : 'undecodable characters' });
      continue;
    }
    const { parsed } = header;
    const sender = parsed.author === null ? null : normalizeExportSender(parsed.author);
    if (sender === null || isSystemLine(sender, parsed.message, groupAuthors)) {
      result.systemLines += 1;
      continue;
    }
    open.message = {
      line: number,
      wallClock: time.wallClock,
      sender,
      text: parsed.message,
      kind: 'text',
      attachment: parsed.attachment?.fileName ?? null,
    };
    result.messages.push(open.message);
  }
  finishMessages(result);
  return result;
}
