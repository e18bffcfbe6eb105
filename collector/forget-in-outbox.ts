import { eraseMemberReferences } from '../common/erase-member-references.js';
import {
  JID_SERVERS,
  jidPatternSource,
  jidUsers,
  mentionPatternSource,
  personJidUsersIn,
} from '../common/whatsapp-jid.js';
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
 * messages the member wrote lose their content and sender name (`redactMessageBody`); in every body, quoted copies
 * of their messages lose their content, `@<digits>` mentions of them read the pseudonym, and every JID of the
 * member (any server, device) becomes `pseudonym` — the same one the lake uses in this run
 * (`eraseMemberReferences`).
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
  const named = new RegExp(`${jidPatternSource(users)}|${mentionPatternSource(users)}`);
  const eventIds = outbox.rewriteBodies(users, (row) => {
    if (!named.test(row.body)) return null;
    const body = JSON.parse(row.body) as { type?: string; payload?: { key?: Record<string, unknown> } };
    const key = body.payload?.key;
    const isAuthor = isMemberJid(pattern, key?.['participant']) || isMemberJid(pattern, key?.['participantAlt']);
    const redacted = isAuthor
      ? { ...body, payload: redactMessageBody(body.type ?? '', body.payload, { dropSenderName: true }) }
      : body;
    return eraseMemberReferences(isAuthor ? JSON.stringify(redacted) : row.body, users, pseudonym);
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
  const servers = [JID_SERVERS.lid, JID_SERVERS.phone, JID_SERVERS.legacyPhone, JID_SERVERS.hostedPhone];
  outbox.rewriteBodies(
    servers.map((server) => `@${server}`),
    (row) => {
      for (const user of personJidUsersIn(row.body)) if (!found.has(user) && isMember(user)) found.add(user);
      return null;
    }
  );
  return [...found];
}
