import type pg from 'pg';
import { discardKeptEngagementReports } from '../engagement/kept-engagement-reports.js';
import type { LakeErasureResult } from './lake-erasure-result.js';

const NAME_KEY_PREFIX = 'name:';

/**
 * The name of an export sender's key (`name:Bob` → `Bob`, trimmed), as `wa-lake import-export --unresolved` lists
 * it and `members link` takes it; undefined for anything else (ADR 0023).
 */
export function exportSenderNameOf(participant: string): string | undefined {
  const trimmed = participant.trim();
  if (!trimmed.toLowerCase().startsWith(NAME_KEY_PREFIX)) return undefined;
  const name = trimmed.slice(NAME_KEY_PREFIX.length).trim();
  return name === '' ? undefined : name;
}

// An exported message's text, sender name and phone go; the message keeps counting for the pseudonym.
const REDACT_EXPORTED = `
  UPDATE whatsapp_event_logs
     SET payload = jsonb_set(jsonb_set(payload - 'pushName', '{key,participant}', to_jsonb($2::text)),
                             '{message}', '{"conversation": null, "_redacted": true}'),
         body_redacted_at = COALESCE(body_redacted_at, now()), updated_at = now()
   WHERE type = 'export.message' AND event_id IN (SELECT event_id FROM candidates)`;

/**
 * Erases an export sender no participant is known for (`forget --participant name:Bob`, ADR 0023), inside the
 * caller's transaction: every exported message whose sender was written as that name (trimmed, any case, as
 * names resolve) loses its text and name and counts for `pseudonym`; the `members link` of the name's key goes.
 * Idempotent: a second run finds no row with that name.
 */
export async function forgetExportSenderInLake(
  client: pg.ClientBase,
  name: string,
  pseudonym: string
): Promise<LakeErasureResult> {
  // Kept reports name senders: none counted before this erasure is served or kept after it (ADR 0034).
  await discardKeptEngagementReports(client);
  const redacted = await client.query(
    `WITH candidates AS (
       SELECT event_id FROM whatsapp_event_logs
        WHERE type = 'export.message' AND payload->'key'->>'participant' IS NULL
          AND lower(btrim(payload->>'pushName')) = lower($1))
     ${REDACT_EXPORTED}`,
    [name, pseudonym]
  );
  const links = await client.query(`DELETE FROM whatsapp_member_links WHERE lower(participant_id) = lower($1)`, [
    `${NAME_KEY_PREFIX}${name}`,
  ]);
  const rows = redacted.rowCount ?? 0;
  return {
    jids: [],
    eventIds: [],
    skipped: [],
    sentMessages: { sentMessageIds: [], unfinishedMessageIds: [] },
    counts: {
      messageBodiesRedacted: rows,
      aliasesDeleted: 0,
      participantsDeleted: 0,
      memberLinksDeleted: links.rowCount ?? 0,
      pseudonymized: rows > 0 ? { 'whatsapp_event_logs.payload': rows } : {},
      optInsDeleted: 0,
      testRecipientsDeleted: 0,
      sentMessagesRedacted: 0,
    },
  };
}

/**
 * The exported messages of a member erased by JID that count for them through a `members link` of a `name:` key
 * to the same member id (ADR 0023), inside the caller's transaction: their text, name and phone go and they
 * count for `pseudonym`; those `name:` links are deleted, being the member's.
 *
 * @param pattern - `jidPatternSource` of the member's JID users.
 * @returns rows redacted and links deleted.
 */
export async function forgetLinkedExportSenders(
  client: pg.ClientBase,
  pattern: string,
  pseudonym: string
): Promise<{ messagesRedacted: number; linksDeleted: number }> {
  const linkedNames = `SELECT participant_id FROM whatsapp_member_links
     WHERE participant_id LIKE '${NAME_KEY_PREFIX}%'
       AND member_id IN (SELECT member_id FROM whatsapp_member_links WHERE participant_id ~ $1)`;
  const redacted = await client.query(
    `WITH candidates AS (
       SELECT event_id FROM whatsapp_export_messages WHERE participant_key IN (${linkedNames}))
     ${REDACT_EXPORTED}`,
    [pattern, pseudonym]
  );
  const links = await client.query(`DELETE FROM whatsapp_member_links WHERE participant_id IN (${linkedNames})`, [
    pattern,
  ]);
  return { messagesRedacted: redacted.rowCount ?? 0, linksDeleted: links.rowCount ?? 0 };
}
