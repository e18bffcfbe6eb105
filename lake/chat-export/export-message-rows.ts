import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { phoneJidOf } from '../../common/whatsapp-jid.js';
import type { EventLogRow } from '../events/event-log-rows.js';
import type { ExportedMessage } from './parse-chat-export.js';
import type { DateOrder } from './written-timestamp.js';

/** Event type of a message read from a chat export (ADR 0023). */
export const EXPORT_MESSAGE_TYPE = 'export.message';

/** `source` of its raw row: never the capture's `live`, `history`, `on_demand` or `replay`. */
export const EXPORT_SOURCE = 'export';

// A phone number as an export writes it: `+55 11 98765-4321`, digits with spaces, dashes, dots, parentheses.
const WRITTEN_PHONE = /^\+?[\d\s\-().\u00A0]+$/;

/** The digits of a sender written as a phone number (8–15 digits), else null: a name. */
export function phoneDigitsOfSender(sender: string): string | null {
  if (!WRITTEN_PHONE.test(sender)) return null;
  const digits = sender.replace(/\D/g, '');
  return digits.length >= 8 && digits.length <= 15 ? digits : null;
}

/**
 * The UUIDv5 names of exported messages, in order (ADR 0023): `export.message` · group · sender as written ·
 * minute as written (the wall clock, never the instant: reading the same file in another `--time-zone` must not
 * make new messages) · SHA-256 of the text (without an "edited" marker) · ordinal among the messages of the file
 * equal in the four before it. The same message in the same group from any export (the same file twice, an
 * overlapping newer one) gets the same name, and two identical messages in one minute stay two.
 */
export function exportMessageIdNames(groupJid: string, messages: readonly ExportedMessage[]): string[] {
  const seen = new Map<string, number>();
  return messages.map((message) => {
    const minute = message.wallClock.slice(0, 16);
    const digest = createHash('sha256').update(message.text, 'utf8').digest('hex');
    const base = [EXPORT_MESSAGE_TYPE, groupJid, message.sender, minute, digest].join('|');
    const ordinal = seen.get(base) ?? 0;
    seen.set(base, ordinal + 1);
    return `${base}|${ordinal}`;
  });
}

/**
 * The raw rows of exported messages, shaped so the lake's privacy rules apply unchanged: the sender's phone JID is
 * `key.participant` (erasure finds and pseudonymizes it), a name sender is `pushName` (erasure drops it), the text is
 * `message.conversation` (retention and erasure redact it); `export` keeps the kind, line and time as written.
 *
 * @param eventIds - the event id of each message (UUIDv5 of {@link exportMessageIdNames}), as `messages`.
 * @throws RangeError when an instant is an invalid Date.
 */
export function exportMessageRows(
  groupJid: string,
  messages: readonly ExportedMessage[],
  sentAt: readonly Date[],
  eventIds: readonly string[],
  options: {
    timeZone: string;
    importedAt: Date;
    groupSubject?: string | null;
    /** The file's SHA-256 and the order its dates were read in: a later reading of the file replaces this one. */
    fileDigest?: string;
    dateOrder?: DateOrder;
  }
): EventLogRow[] {
  return messages.map((message, index) => {
    const at = sentAt[index] ?? new Date(Number.NaN);
    const digits = phoneDigitsOfSender(message.sender);
    const payload = {
      key: { remoteJid: groupJid, participant: digits === null ? null : phoneJidOf(digits) },
      pushName: digits === null ? message.sender : null,
      messageTimestamp: Math.floor(at.getTime() / 1000),
      message: { conversation: message.text },
      export: {
        kind: message.kind,
        line: message.line,
        wall_clock: message.wallClock,
        time_zone: options.timeZone,
        ...(options.fileDigest === undefined ? {} : { file_sha256: options.fileDigest }),
        ...(options.dateOrder === undefined ? {} : { date_order: options.dateOrder }),
        // The group's name as the export gave it, so `wa-lake rebuild` makes the group row again (ADR 0029).
        ...(options.groupSubject ? { group_subject: options.groupSubject } : {}),
      },
    };
    return {
      id: uuidv7(),
      eventId: eventIds[index] ?? '',
      type: EXPORT_MESSAGE_TYPE,
      chatJid: groupJid,
      bodyText: JSON.stringify({ payload }),
      receivedAt: options.importedAt,
      capturedAt: null,
      upsertType: null,
      occurredAt: at,
      isSanitized: false,
      source: EXPORT_SOURCE,
    };
  });
}
