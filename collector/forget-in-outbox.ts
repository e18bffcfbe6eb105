import { jidPatternSource, jidUsers, personJidUsersIn } from '../common/whatsapp-jid.js';
import { redactMessageBody } from '../common/redact-message-body.js';
import type { OutboxStore } from './outbox-store.js';

/** What {@link forgetParticipantInOutbox} changed. `eventIds` is for matching other stores, not for storage. */
export interface OutboxErasureResult {
  rowsRewritten: number;
  eventIds: string[];
}

/** Is `jid` (possibly with a device suffix) one of the member's? */
const isMemberJid = (pattern: RegExp, value: unknown): boolean =>
  typeof value === 'string' && new RegExp(`^${pattern.source}$`).test(value);

/**
 * Erasure in the collector's outbox (architecture.md §14, ADR 0010), one SQLite transaction: bodies of
 * messages the member wrote lose their content and sender name (`redactMessageBody`), and every JID of
 * the member in any body becomes `pseudonym` — the same one the lake uses in this run.
 *
 * @param jids - the member's JIDs (input plus aliases found in the lake).
 */
export function forgetParticipantInOutbox(
  outbox: OutboxStore,
  jids: readonly string[],
  pseudonym: string
): OutboxErasureResult {
  const users = jidUsers(jids);
  if (users.length === 0) return { rowsRewritten: 0, eventIds: [] };
  const pattern = new RegExp(jidPatternSource(users), 'g');
  const eventIds = outbox.rewriteBodies(users, (row) => {
    if (!pattern.test(row.body)) return null;
    pattern.lastIndex = 0;
    const body = JSON.parse(row.body) as { type?: string; payload?: { key?: Record<string, unknown> } };
    const key = body.payload?.key;
    const isAuthor = isMemberJid(pattern, key?.['participant']) || isMemberJid(pattern, key?.['participantAlt']);
    const redacted = isAuthor
      ? { ...body, payload: redactMessageBody(body.type ?? '', body.payload, { dropSenderName: true }) }
      : body;
    return JSON.stringify(redacted).replace(pattern, pseudonym);
  });
  return { rowsRewritten: eventIds.length, eventIds };
}

/**
 * The JID user parts (digits) in the outbox for which `isMember` holds (ADR 0017): how a rerun of an
 * incomplete erasure finds the member's LID after the lake's alias tying it to the phone number is gone (the
 * pending erasure recognises it by its hash). Reads every row that holds a participant JID; changes nothing.
 */
export function findMemberUsersInOutbox(outbox: OutboxStore, isMember: (user: string) => boolean): string[] {
  const found = new Set<string>();
  outbox.rewriteBodies(['@lid', '@s.whatsapp.net', '@c.us'], (row) => {
    for (const user of personJidUsersIn(row.body)) if (!found.has(user) && isMember(user)) found.add(user);
    return null;
  });
  return [...found];
}
