import type pg from 'pg';
import { isPnUser, phoneDigitsOfJid } from '../../common/whatsapp-jid.js';
import { inTransaction, queryRows } from '../pool.js';
import { expandAliases } from './forget-participant.js';
import { readExportEngagement } from './participant-export-engagement.js';
import { readExportMessagesSent, readExportOptIns } from './participant-export-send-side.js';
import {
  PARTICIPANT_EXPORT_SCHEMA_VERSION,
  type ExportedMessage,
  type ParticipantExport,
} from './participant-export.js';

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());
const PSEUDONYM = /^erased-[0-9a-f-]{36}@erased$/;

/**
 * The JIDs a request names: a pseudonym as is, a member id through its member links, anything else through
 * `canonical` (the caller's participant parser) and the alias tables.
 */
export async function resolveExportJids(
  pool: pg.Pool,
  identifier: string,
  canonical: (input: string) => string
): Promise<{ jids: string[]; readAs: ParticipantExport['request']['readAs'] }> {
  const trimmed = identifier.trim();
  if (PSEUDONYM.test(trimmed)) return { jids: [trimmed], readAs: 'pseudonym' };
  const linked = await queryRows<{ participant_id: string }>(
    pool,
    'SELECT participant_id FROM whatsapp_member_links WHERE member_id = $1',
    [trimmed]
  );
  if (linked.length > 0) {
    return {
      jids: await expandAliases(
        pool,
        linked.map((row) => row.participant_id)
      ),
      readAs: 'member id',
    };
  }
  return { jids: await expandAliases(pool, [canonical(trimmed)]), readAs: 'participant' };
}

/**
 * Reads one person's data for `wa-lake export` (ADR 0014 decision 7) in one repeatable-read transaction: set-based
 * queries keyed by the person's JIDs (the sender index serves their messages), their own texts read from the raw
 * rows their read-model records point to, never another member's content.
 */
export async function readParticipantExport(
  pool: pg.Pool,
  request: { identifier: string; readAs: ParticipantExport['request']['readAs']; jids: readonly string[] },
  now: Date
): Promise<ParticipantExport> {
  const jids = [...request.jids];
  const result = await inTransaction(
    pool,
    async (client): Promise<ParticipantExport> => {
      const links = await readMemberLinks(client, jids);
      const messages = await readMessages(client, jids);
      return {
        schema: 'wa-lake/participant-export',
        schemaVersion: PARTICIPANT_EXPORT_SCHEMA_VERSION,
        generatedAt: now.toISOString(),
        request: { identifier: request.identifier, readAs: request.readAs },
        isFound: false,
        identifiers: {
          jids,
          phoneNumbers: jids.flatMap((jid) => (isPnUser(jid) ? [`+${phoneDigitsOfJid(jid) ?? ''}`] : [])),
          memberIds: [...new Set(links.map((link) => link.memberId))].sort(),
        },
        displayNames: messages.names,
        memberLinks: links,
        memberships: await readMemberships(client, jids),
        messages: messages.messages,
        reactionsGiven: await readReactions(client, jids),
        exportedChatMessages: await readExportedChatMessages(client, jids),
        engagement: await readExportEngagement(client, jids, now),
        messagesSentToThem: await readExportMessagesSent(client, jids),
        optIns: await readExportOptIns(client, jids),
        notReached: [],
      };
    },
    'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'
  );
  const { identifiers, ...data } = result;
  result.isFound =
    identifiers.memberIds.length > 0 ||
    Object.values(data).some((value) => Array.isArray(value) && value.length > 0) ||
    result.engagement.groups.length > 0 ||
    (await queryRows(pool, 'SELECT 1 FROM whatsapp_participants WHERE id = ANY($1) LIMIT 1', [jids])).length > 0;
  return result;
}

async function readMemberLinks(client: pg.ClientBase, jids: string[]): Promise<ParticipantExport['memberLinks']> {
  const { rows } = await client.query<{
    participant_id: string;
    member_id: string;
    name: string | null;
    linked_at: Date;
  }>(
    `SELECT participant_id, member_id, name, linked_at FROM whatsapp_member_links
      WHERE participant_id = ANY($1) ORDER BY linked_at, participant_id`,
    [jids]
  );
  return rows.map((row) => ({
    participantId: row.participant_id,
    memberId: row.member_id,
    name: row.name,
    linkedAt: row.linked_at.toISOString(),
  }));
}

async function readMemberships(client: pg.ClientBase, jids: string[]): Promise<ParticipantExport['memberships']> {
  const { rows } = await client.query<{
    group_jid: string;
    subject: string | null;
    role: string;
    joined_at: Date | null;
    left_at: Date | null;
  }>(
    `SELECT m.group_jid, g.subject, m.role, m.joined_at, m.left_at
       FROM whatsapp_group_memberships m LEFT JOIN whatsapp_groups g ON g.jid = m.group_jid
      WHERE m.participant_id = ANY($1) ORDER BY m.group_jid, m.joined_at NULLS FIRST`,
    [jids]
  );
  return rows.map((row) => ({
    groupJid: row.group_jid,
    groupSubject: row.subject,
    role: row.role,
    joinedAt: iso(row.joined_at),
    leftAt: iso(row.left_at),
  }));
}

/** Their messages with their own text (the raw row the record points to) and the names that row carried. */
async function readMessages(
  client: pg.ClientBase,
  jids: string[]
): Promise<{ messages: ExportedMessage[]; names: ParticipantExport['displayNames'] }> {
  const { rows } = await client.query<{
    chat_jid: string;
    message_id: string;
    sent_at: Date;
    kind: string;
    reply_to_id: string | null;
    deleted_at: Date | null;
    edited_at: Date[] | null;
    text: string | null;
    is_redacted: boolean;
    push_name: string | null;
    business_name: string | null;
  }>(
    `SELECT r.chat_jid, r.message_id, r.sent_at, r.kind, r.reply_to_id, v.deleted_at,
            (SELECT array_agg(x.edited_at ORDER BY x.edited_at) FROM whatsapp_message_edits x
              WHERE x.chat_jid = r.chat_jid AND x.target_id = r.message_id) AS edited_at,
            COALESCE(c.content ->> 'conversation', c.content -> 'extendedTextMessage' ->> 'text',
                     c.content -> 'imageMessage' ->> 'caption', c.content -> 'videoMessage' ->> 'caption',
                     c.content -> 'documentMessage' ->> 'caption') AS text,
            e.body_redacted_at IS NOT NULL AS is_redacted,
            NULLIF(btrim(e.payload ->> 'pushName'), '') AS push_name,
            NULLIF(btrim(e.payload ->> 'verifiedBizName'), '') AS business_name
       FROM whatsapp_message_records r
       JOIN whatsapp_event_logs e ON e.event_id = r.record_event_id
       CROSS JOIN LATERAL (SELECT wa_message_content(e.payload -> 'message') AS content) c
       LEFT JOIN whatsapp_message_revokes v ON v.chat_jid = r.chat_jid AND v.target_id = r.message_id
      WHERE r.sender_id = ANY($1) AND r.is_message
      ORDER BY r.sent_at, r.chat_jid, r.message_id`,
    [jids]
  );
  const names = new Map<string, ParticipantExport['displayNames'][number]>();
  for (const row of rows) {
    for (const [kind, name] of [
      ['push', row.push_name],
      ['business', row.business_name],
    ] as const) {
      if (name === null) continue;
      const seen = row.sent_at.toISOString();
      const known = names.get(`${kind}\u0000${name}`);
      if (known) {
        known.lastSeenAt = seen;
        known.messages += 1;
      } else names.set(`${kind}\u0000${name}`, { kind, name, firstSeenAt: seen, lastSeenAt: seen, messages: 1 });
    }
  }
  return {
    names: [...names.values()],
    messages: rows.map((row) => ({
      groupJid: row.chat_jid,
      messageId: row.message_id,
      sentAt: row.sent_at.toISOString(),
      kind: row.kind,
      text: row.is_redacted ? null : row.text,
      isRedacted: row.is_redacted,
      replyToMessageId: row.reply_to_id,
      editedAt: (row.edited_at ?? []).map((at) => at.toISOString()),
      deletedAt: iso(row.deleted_at),
    })),
  };
}

async function readReactions(client: pg.ClientBase, jids: string[]): Promise<ParticipantExport['reactionsGiven']> {
  const { rows } = await client.query<{ chat_jid: string; target_id: string; text: string; reacted_at: Date }>(
    `SELECT DISTINCT ON (chat_jid, target_id) chat_jid, target_id, text, reacted_at
       FROM whatsapp_message_reactions WHERE reactor_id = ANY($1) AND text <> ''
      ORDER BY chat_jid, target_id, reacted_at DESC`,
    [jids]
  );
  return rows.map((row) => ({
    groupJid: row.chat_jid,
    targetMessageId: row.target_id,
    reaction: row.text,
    reactedAt: row.reacted_at.toISOString(),
  }));
}

async function readExportedChatMessages(
  client: pg.ClientBase,
  jids: string[]
): Promise<ParticipantExport['exportedChatMessages']> {
  const { rows } = await client.query<{ group_jid: string; sent_at: Date; kind: string | null; text: string | null }>(
    `SELECT x.group_jid, x.sent_at, x.kind,
            CASE WHEN e.body_redacted_at IS NULL THEN e.payload -> 'message' ->> 'conversation' END AS text
       FROM whatsapp_export_messages x JOIN whatsapp_event_logs e ON e.event_id = x.event_id
      WHERE x.participant_key = ANY($1) ORDER BY x.sent_at`,
    [jids]
  );
  return rows.map((row) => ({
    groupJid: row.group_jid,
    sentAt: row.sent_at.toISOString(),
    kind: row.kind,
    text: row.text,
  }));
}
