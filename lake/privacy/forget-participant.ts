import type pg from 'pg';
import { MESSAGE_BODY_TYPES, redactMessageBody } from '../../common/redact-message-body.js';
import { jidPatternSource, jidUsers, mentionPatternSource } from '../../common/whatsapp-jid.js';
import { discardKeptEngagementReports } from '../engagement/kept-engagement-reports.js';
import { runChunkSkippingUnrenderable, type SkippedRow } from '../events/unreadable-rows.js';
import {
  eitherPattern,
  type MemberNames,
  redactQuotesOfMember,
  replaceNames,
  replaceNamesParams,
  replaceNamesSql,
} from './erase-member-names.js';
import { forgetLinkedExportSenders } from './forget-export-sender.js';
import { forgetParticipantInSendTables } from './forget-send-side.js';
import type { LakeErasureResult } from './lake-erasure-result.js';

// Run records are not personal data; identity rows are handled explicitly before the generic pass.
const SKIPPED_TABLES = [
  'whatsapp_erasure_runs',
  'whatsapp_retention_runs',
  'whatsapp_pending_erasures',
  'whatsapp_erasure_tombstones',
  'whatsapp_access_requests',
];
// Pseudonymized chunk by chunk before the generic pass (one hostile row must not stop erasure).
const CHUNKED_COLUMNS = new Set(['whatsapp_event_logs.payload']);

/**
 * Erasure in the lake (architecture.md §14, ADR 0010), in ONE transaction of `client` (the caller
 * begins and commits). Finds the member's JIDs through `whatsapp_lid_aliases` and `whatsapp_participants`;
 * redacts the content and sender name of messages they wrote, and quoted copies of them in other members' replies
 * (ADR 0027); deletes their alias and participant rows; then replaces every `@<digits>` mention of them in text by
 * the pseudonym's name and every occurrence of their JIDs (any server, device suffix) in every text/jsonb column of
 * every `whatsapp_*` base table — raw payloads, memberships, facts, snapshots, group fields, and read models
 * added later — by `pseudonym`, so engagement counts keep one anonymous member instead of breaking. On the
 * send side it deletes their opt-ins and redacts the messages sent to them (ADR 0014 decision 5).
 * Idempotent: a second run finds nothing left to change.
 *
 * @param jids - canonical JIDs from `parseParticipantIdentifier`.
 * @param pseudonym - e.g. `erased-<uuid>@erased`: random per run, so it cannot be linked back.
 */
export async function forgetParticipantInLake(
  client: pg.ClientBase,
  jids: readonly string[],
  pseudonym: string
): Promise<LakeErasureResult> {
  // A running ingest API drops the identities it remembers at its next statement (ADR 0019).
  await client.query(`UPDATE whatsapp_identity_generation SET generation = generation + 1`);
  // Kept reports name members: none counted before this erasure is served or kept after it (ADR 0034).
  await discardKeptEngagementReports(client);
  const allJids = await expandAliases(client, jids);
  const users = jidUsers(allJids);
  const pattern = jidPatternSource(users);
  const names: MemberNames = { users, pattern, mention: mentionPatternSource(users), pseudonym };
  const skipped: SkippedRow[] = [];
  const exportedRedacted = await redactExportedMessages(client, allJids, pseudonym);
  // Before the member's own links go: they tell which `name:` keys of exported senders are the member's.
  const linkedExports = await forgetLinkedExportSenders(client, pattern, pseudonym);
  const messageBodiesRedacted =
    exportedRedacted + linkedExports.messagesRedacted + (await redactAuthoredMessages(client, pattern, skipped));
  // The raw table first, in chunks: one row PostgreSQL cannot render is skipped and named (ADR 0014).
  const rawPass = await pseudonymizeRawPayloads(client, names, skipped);
  const aliases = await client.query(`DELETE FROM whatsapp_lid_aliases WHERE lid ~ $1 OR phone_jid ~ $1`, [pattern]);
  const participants = await client.query(
    `DELETE FROM whatsapp_participants WHERE id ~ $1 OR COALESCE(lid, '') ~ $1 OR COALESCE(phone_jid, '') ~ $1`,
    [pattern]
  );
  if ((participants.rowCount ?? 0) > 0) {
    await client.query(`INSERT INTO whatsapp_participants (id) VALUES ($1) ON CONFLICT DO NOTHING`, [pseudonym]);
  }
  // A member seen under both its LID and its phone JID has two rows per key; both become the pseudonym.
  await client.query(
    `DELETE FROM whatsapp_group_memberships m WHERE m.participant_id ~ $1 AND EXISTS (
       SELECT 1 FROM whatsapp_group_memberships o WHERE o.group_jid = m.group_jid AND o.participant_id ~ $1
         AND o.participant_id < m.participant_id)`,
    [pattern]
  );
  await client.query(
    `DELETE FROM whatsapp_membership_facts f WHERE f.participant_id ~ $1 AND EXISTS (
       SELECT 1 FROM whatsapp_membership_facts o WHERE o.group_jid = f.group_jid AND o.event_id = f.event_id
         AND o.participant_id ~ $1 AND o.participant_id < f.participant_id)`,
    [pattern]
  );
  await client.query(
    `DELETE FROM whatsapp_message_reactions r WHERE r.reactor_id ~ $1 AND EXISTS (
       SELECT 1 FROM whatsapp_message_reactions o WHERE o.chat_jid = r.chat_jid AND o.target_id = r.target_id
         AND o.reactor_id ~ $1 AND o.reactor_id < r.reactor_id)`,
    [pattern]
  );
  const memberLinks = await client.query(`DELETE FROM whatsapp_member_links WHERE participant_id ~ $1`, [pattern]);
  const send = await forgetParticipantInSendTables(client, pattern, pseudonym);
  return {
    jids: allJids,
    eventIds: rawPass.eventIds,
    skipped,
    sentMessages: { sentMessageIds: send.sentMessageIds, unfinishedMessageIds: send.unfinishedMessageIds },
    counts: {
      ...send.counts,
      messageBodiesRedacted,
      aliasesDeleted: aliases.rowCount ?? 0,
      participantsDeleted: participants.rowCount ?? 0,
      memberLinksDeleted: (memberLinks.rowCount ?? 0) + linkedExports.linksDeleted,
      pseudonymized: {
        ...(rawPass.eventIds.length > 0 ? { 'whatsapp_event_logs.payload': rawPass.eventIds.length } : {}),
        ...(await pseudonymizeEverywhere(client, names)),
      },
    },
  };
}

/**
 * The input JIDs plus every JID linked to them by an alias or a participant row (to a fixed point); read only,
 * so `forget` can check them against the linked account before changing anything.
 */
export async function expandAliases(client: pg.ClientBase | pg.Pool, jids: readonly string[]): Promise<string[]> {
  const found = new Set(jids);
  for (let round = 0; round < 4; round += 1) {
    const { rows } = await client.query<{ jid: string | null }>(
      `SELECT unnest(ARRAY[lid, phone_jid]) AS jid FROM whatsapp_lid_aliases WHERE lid = ANY($1) OR phone_jid = ANY($1)
       UNION SELECT unnest(ARRAY[id, lid, phone_jid]) FROM whatsapp_participants
        WHERE id = ANY($1) OR lid = ANY($1) OR phone_jid = ANY($1)`,
      [[...found]]
    );
    const before = found.size;
    for (const row of rows) if (row.jid) found.add(row.jid);
    if (found.size === before) break;
  }
  return [...found].sort();
}

/**
 * Exported messages the member wrote (ADR 0023): the sender resolves to one of `jids` when read
 * (a phone number they own, or a name of theirs), so the name, the text and the phone JID go now, while the names
 * and links that resolve it still exist; the message keeps counting for `pseudonym`.
 */
async function redactExportedMessages(
  client: pg.ClientBase,
  jids: readonly string[],
  pseudonym: string
): Promise<number> {
  const { rowCount } = await client.query(
    `UPDATE whatsapp_event_logs
        SET payload = jsonb_set(jsonb_set(payload - 'pushName', '{key,participant}', to_jsonb($2::text)),
                                '{message}', '{"conversation": null, "_redacted": true}'),
            body_redacted_at = COALESCE(body_redacted_at, now()), updated_at = now()
      WHERE type = 'export.message'
        AND event_id IN (SELECT event_id FROM whatsapp_export_messages WHERE participant_key = ANY($1::text[]))`,
    [jids, pseudonym]
  );
  return rowCount ?? 0;
}

const RAW_CHUNK_ROWS = 1_000;

/** Keys of the raw table in `id` order, one chunk at a time (no payload rendered). */
async function* rawKeyChunks(
  client: pg.ClientBase,
  filter: string,
  params: unknown[]
): AsyncGenerator<Array<{ id: string; eventId: string }>> {
  let lastId = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await client.query<{ id: string; event_id: string }>(
      `SELECT id, event_id FROM whatsapp_event_logs WHERE id > $1 ${filter} ORDER BY id LIMIT ${RAW_CHUNK_ROWS}`,
      [lastId, ...params]
    );
    if (rows.length > 0) yield rows.map((row) => ({ id: row.id, eventId: row.event_id }));
    const last = rows.at(-1);
    if (!last || rows.length < RAW_CHUNK_ROWS) return;
    lastId = last.id;
  }
}

async function redactAuthoredMessages(client: pg.ClientBase, pattern: string, skipped: SkippedRow[]): Promise<number> {
  let redactedCount = 0;
  const filter = `AND type = ANY($2::text[]) AND (COALESCE(payload #>> '{key,participant}', '') ~ $3
        OR COALESCE(payload #>> '{key,participantAlt}', '') ~ $3)`;
  for await (const keys of rawKeyChunks(client, filter, [MESSAGE_BODY_TYPES, pattern])) {
    const changed = await runChunkSkippingUnrenderable(
      client,
      keys,
      async (ids) => {
        const { rows } = await client.query<{ id: string; type: string; payload: unknown }>(
          'SELECT id, type, payload FROM whatsapp_event_logs WHERE id = ANY($1::uuid[]) FOR UPDATE',
          [ids]
        );
        const redacted = rows.map((row) =>
          JSON.stringify(redactMessageBody(row.type, row.payload, { dropSenderName: true }))
        );
        await client.query(
          `UPDATE whatsapp_event_logs AS e SET payload = r.payload, body_redacted_at = COALESCE(e.body_redacted_at, now()),
              updated_at = now()
             FROM unnest($1::uuid[], $2::jsonb[]) AS r(id, payload) WHERE e.id = r.id AND e.payload IS DISTINCT FROM r.payload`,
          [rows.map((row) => row.id), redacted]
        );
        return rows.filter((row, index) => JSON.stringify(row.payload) !== redacted[index]);
      },
      (row) => skipped.push(row)
    );
    redactedCount += changed.length;
  }
  return redactedCount;
}

/**
 * Erases the member from raw payloads chunk by chunk (architecture.md §14): quoted copies of their messages
 * (`eraseMemberReferences`, in JS), then `@<digits>` mentions and JIDs (in SQL).
 * @returns the `event_id`s of the rows changed.
 */
async function pseudonymizeRawPayloads(
  client: pg.ClientBase,
  names: MemberNames,
  skipped: SkippedRow[]
): Promise<{ eventIds: string[] }> {
  const eventIds = new Set<string>();
  const known = new Set(skipped.map((row) => row.eventId));
  for await (const keys of rawKeyChunks(client, '', [])) {
    const changed = await runChunkSkippingUnrenderable(
      client,
      keys,
      async (ids) => [...(await redactQuotesOfMember(client, names, ids)), ...(await replaceNames(client, names, ids))],
      (row) => {
        if (!known.has(row.eventId)) skipped.push(row);
        known.add(row.eventId);
      }
    );
    for (const eventId of changed) eventIds.add(eventId);
  }
  return { eventIds: [...eventIds] };
}

async function pseudonymizeEverywhere(client: pg.ClientBase, names: MemberNames): Promise<Record<string, number>> {
  const { rows: columns } = await client.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name LIKE 'whatsapp\\_%'
        AND NOT (c.table_name = ANY($1)) AND c.data_type IN ('text', 'character varying', 'jsonb', 'json')
      ORDER BY c.table_name, c.column_name`,
    [SKIPPED_TABLES]
  );
  const counts: Record<string, number> = {};
  for (const column of columns) {
    if (CHUNKED_COLUMNS.has(`${column.table_name}.${column.column_name}`)) continue;
    const table = client.escapeIdentifier(column.table_name);
    const name = client.escapeIdentifier(column.column_name);
    const cast = column.data_type === 'jsonb' || column.data_type === 'json' ? `::${column.data_type}` : '';
    const result = await client.query(
      `UPDATE ${table} SET ${name} = ${replaceNamesSql(`${name}::text`)}${cast} WHERE ${name}::text ~ $5`,
      [...replaceNamesParams(names), eitherPattern(names)]
    );
    if ((result.rowCount ?? 0) > 0) counts[`${column.table_name}.${column.column_name}`] = result.rowCount ?? 0;
  }
  return counts;
}

/**
 * Records one erasure run in `whatsapp_erasure_runs` (ADR 0010): who, when, counts and what was
 * not reached — never the identifier or the erased data (the caller passes counts only).
 */
export async function recordErasureRun(
  pool: pg.Pool,
  run: { id: string; requestedBy: string; startedAt: Date; counts: object; notReached: readonly string[] }
): Promise<void> {
  await pool.query(
    `INSERT INTO whatsapp_erasure_runs (id, requested_by, started_at, finished_at, counts, not_reached)
     VALUES ($1, $2, $3, now(), $4, $5)`,
    [run.id, run.requestedBy, run.startedAt, JSON.stringify(run.counts), JSON.stringify(run.notReached)]
  );
}
