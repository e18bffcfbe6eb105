import { parseString, type Message } from 'whatsapp-chat-parser';

/** What an exported message is: its own text, a media file (attached or omitted), or a deleted message. */
export type ExportedMessageKind = 'text' | 'media' | 'deleted';

/** One message of a chat export, as written (issue #30 item 1). */
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
  /** Lines in the file, blank ones included. */
  lines: number;
}

const LINE_BREAK = /\r\n|\r|\n/;
// U+FFFD is what a decoder makes of bytes that are no UTF-8; C0 controls other than tab never occur in a chat.
// eslint-disable-next-line no-control-regex
const UNDECODABLE = /[\uFFFD\u0000-\u0008\u000B\u000C\u000E-\u001F]/;
// A line that starts like a timestamp (date, then an hour) which the parser did not take as a header: a header cut
// short or garbled. A message's own line starting with a bare date ("12/03 meeting") has no hour after it.
const HEADER_LIKE = /^[\u200E\u200F]*\[?\d{1,4}[-/.]\s?\d{1,4}[-/.]\s?\d{1,4}[,.]?\s+\d{1,2}[:.]/;
const BIDI_MARKS = /[\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
// WhatsApp has existed since 2009; a time outside these years is a misread date.
const FIRST_YEAR = 2009;
const LAST_YEAR = 2100;

// Phrases WhatsApp writes in place of a message (English and Portuguese, Android and iOS), lower case, without
// bidi marks and a final full stop.
const DELETED_PHRASES = new Set([
  'this message was deleted',
  'you deleted this message',
  'esta mensagem foi apagada',
  'você apagou esta mensagem',
  'mensagem apagada',
]);
// iOS writes the end-to-end notice as a message of the group itself (the group's name as its author).
const ENCRYPTION_NOTICE =
  /^[\u200E\u200F]*(?:messages and calls are end-to-end encrypted|as mensagens e as chamadas são protegidas com a criptografia de ponta a ponta)/i;
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

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/**
 * The wall clock the parser read. `whatsapp-chat-parser` builds a Date in the process's own time zone from the
 * numbers written; reading them back with the local getters returns them unchanged, unless the written time
 * falls into a daylight-saving gap of that zone, so `wa-lake import-export` runs the parser with `TZ=UTC`.
 */
function wallClockOf(date: Date): string | null {
  if (Number.isNaN(date.getTime())) return null;
  const year = date.getFullYear();
  if (year < FIRST_YEAR || year > LAST_YEAR) return null;
  return (
    `${pad(year, 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/**
 * Whether the file writes the day before the month, decided by the parser over every date of the file (as it
 * does when not told): a line parsed alone cannot tell `03/04` from `04/03`.
 */
function detectDaysFirst(text: string): boolean {
  const guessed = parseString(text);
  const dayFirst = parseString(text, { daysFirst: true });
  return guessed.every((message, index) => message.date.getTime() === dayFirst[index]?.date.getTime());
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

/**
 * Reads a WhatsApp "Export chat" text (Android or iOS, any locale the parser reads: English, Portuguese, …, 12- or
 * 24-hour clock) with `whatsapp-chat-parser`, one line at a time so that every message keeps its line number and
 * every line the parser cannot place is reported: a line before the first message, a message header whose date is
 * out of range, a line with undecodable characters, and a line that starts like a header the parser did not take
 * (issue #30 item 1). A message's other lines are continuation lines, as the parser joins them.
 *
 * @param text - the decoded file (UTF-8, BOM allowed).
 * @returns messages in file order, system lines counted, unreadable lines with their numbers.
 */
export function parseChatExport(text: string): ParsedChatExport {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const daysFirst = detectDaysFirst(body);
  const lines = body.split(LINE_BREAK);
  const result: ParsedChatExport = { messages: [], systemLines: 0, unreadable: [], lines: lines.length };
  // Set once a header was read: continuation lines of a skipped header are skipped with it.
  let open: OpenMessage | null = null;
  for (const [index, line] of lines.entries()) {
    const number = index + 1;
    const parsed: Message | undefined = parseString(line, { daysFirst, parseAttachments: true })[0];
    if (parsed === undefined) {
      const reason = continuationProblem(line, open !== null);
      if (reason !== null) result.unreadable.push({ line: number, reason });
      else if (open?.message) open.message.text += `\n${line}`;
      continue;
    }
    open = { message: null };
    const wallClock = wallClockOf(parsed.date);
    if (wallClock === null || UNDECODABLE.test(line)) {
      result.unreadable.push({
        line: number,
        reason: wallClock === null ? 'time out of range' : 'undecodable characters',
      });
      continue;
    }
    if (parsed.author === null || ENCRYPTION_NOTICE.test(parsed.message)) {
      result.systemLines += 1;
      continue;
    }
    open.message = {
      line: number,
      wallClock,
      sender: normalizeExportSender(parsed.author),
      text: parsed.message,
      kind: 'text',
      attachment: parsed.attachment?.fileName ?? null,
    };
    result.messages.push(open.message);
  }
  for (const message of result.messages) {
    message.text = message.text.replace(/\n+$/, '');
    message.kind = kindOf(message.text, message.attachment);
  }
  return result;
}
