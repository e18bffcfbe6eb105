import { randomUUID } from 'node:crypto';
import type pg from 'pg';

const digits = (length: number): string =>
  Array.from({ length }, (_, index) =>
    index === 0 ? 1 + Math.floor(Math.random() * 9) : Math.floor(Math.random() * 10)
  ).join('');

/** One community member as the lake sees it: a LID and the phone JID it maps to. */
export interface Member {
  lid: string;
  phoneJid: string;
  /** The phone number as an operator types it. */
  phone: string;
}

export const newMember = (): Member => {
  const phone = `55${digits(11)}`;
  return { lid: `1${digits(14)}@lid`, phoneJid: `${phone}@s.whatsapp.net`, phone };
};
export const newGroupJid = (): string => `120363${digits(12)}@g.us`;

/** An ingest body (JSON text) as the collector sends it. */
export function body(type: string, chatJid: string | null, payload: unknown, capturedAt: string): string {
  return JSON.stringify({ type, chat_jid: chatJid, payload, captured_at: capturedAt });
}

export const metadataBody = (group: string, members: Member[], capturedAt: string): string =>
  body(
    'groups.metadata',
    group,
    {
      id: group,
      subject: 'Privacy group',
      participants: members.map((member) => ({ id: member.lid, phoneNumber: member.phoneJid, admin: null })),
    },
    capturedAt
  );

/** A text message, optionally replying to `replyTo` (message id of another member's message). */
export function messageBody(
  group: string,
  author: Member,
  text: string,
  at: Date,
  options: { id?: string; replyTo?: { id: string; author: Member } } = {}
): string {
  const message = options.replyTo
    ? {
        extendedTextMessage: {
          text,
          contextInfo: {
            stanzaId: options.replyTo.id,
            participant: options.replyTo.author.lid,
            quotedMessage: { conversation: 'quoted words' },
          },
        },
      }
    : { conversation: text };
  return body(
    'messages.upsert',
    group,
    {
      key: {
        remoteJid: group,
        fromMe: false,
        id: options.id ?? randomUUID(),
        participant: author.lid,
        participantAlt: author.phoneJid,
      },
      messageTimestamp: Math.floor(at.getTime() / 1000),
      pushName: `Name of ${author.phone}`,
      message,
    },
    at.toISOString()
  );
}

export function reactionBody(group: string, reactor: Member, target: { id: string; author: Member }, at: Date): string {
  return body(
    'messages.reaction',
    group,
    {
      key: { remoteJid: group, fromMe: false, id: target.id, participant: target.author.lid },
      reaction: {
        key: { remoteJid: group, fromMe: false, id: randomUUID(), participant: reactor.lid },
        text: '🔥',
        senderTimestampMs: at.getTime(),
      },
    },
    at.toISOString()
  );
}

/**
 * Engagement as the lake's tables give it (architecture.md §13): projections plus event counts by type, chat,
 * participant and day, the message read model and the engagement views. Extend `QUERIES` with each read model or view that is added.
 */
const QUERIES: Record<string, string> = {
  groups: `SELECT jid, subject, snapshot_at FROM whatsapp_groups ORDER BY jid`,
  participants: `SELECT count(*)::int AS n, count(lid)::int AS with_lid FROM whatsapp_participants`,
  memberships: `SELECT group_jid, count(*)::int AS members, count(left_at)::int AS left_count, min(joined_at) AS first_join
                  FROM whatsapp_group_memberships GROUP BY group_jid ORDER BY group_jid`,
  facts: `SELECT group_jid, count(*)::int AS n FROM whatsapp_membership_facts GROUP BY group_jid ORDER BY group_jid`,
  aliases: `SELECT count(*)::int AS n FROM whatsapp_lid_aliases`,
  eventsByTypeChatDay: `SELECT type, chat_jid, date_trunc('day', occurred_at) AS day, count(*)::int AS n
                          FROM whatsapp_event_logs GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  eventsByParticipant: `SELECT type, payload #>> '{key,participant}' AS participant, count(*)::int AS n
                          FROM whatsapp_event_logs GROUP BY 1, 2 ORDER BY 1, 2`,
  replies: `SELECT count(*)::int AS n FROM whatsapp_event_logs
             WHERE payload #>> '{message,extendedTextMessage,contextInfo,stanzaId}' IS NOT NULL`,
  messageKinds: `SELECT k AS kind, count(*)::int AS n FROM whatsapp_event_logs, jsonb_object_keys(payload -> 'message') AS k
                  WHERE type = 'messages.upsert' AND k <> '_redacted' GROUP BY k ORDER BY k`,
  readModelMessages: `SELECT chat_jid, kind, count(*)::int AS n, sum(reaction_count)::int AS reactions,
                        sum(edit_count)::int AS edits, count(deleted_at)::int AS deleted, count(reply_to_id)::int AS replies
                        FROM whatsapp_messages GROUP BY 1, 2 ORDER BY 1, 2`,
  groupDaily: `SELECT group_jid, day, messages, replies, reactions, active_members, joins, leaves
                 FROM engagement_group_daily ORDER BY 1, 2`,
  memberDaily: `SELECT group_jid, participant_id, day, messages, replies, reactions_given, reactions_received, edits, deletions
                  FROM engagement_member_daily ORDER BY 1, 2, 3`,
};

/** Reads {@link QUERIES}: two calls return equal objects when engagement is unchanged. */
export async function readEngagement(pool: pg.Pool): Promise<Record<string, unknown[]>> {
  const result: Record<string, unknown[]> = {};
  for (const [name, sql] of Object.entries(QUERIES)) result[name] = (await pool.query(sql)).rows;
  return result;
}

/**
 * Every text and jsonb value of every `whatsapp_*` and `engagement_*` table (the engagement rollup and its
 * pending deltas key members too), concatenated: what a search of the lake finds.
 */
export async function dumpLakeText(pool: pg.Pool): Promise<string> {
  const { rows: tables } = await pool.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()
       AND table_type = 'BASE TABLE' AND (table_name LIKE 'whatsapp\\_%' OR table_name LIKE 'engagement\\_%')`
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const { rows } = await pool.query<{ row: string }>(`SELECT t::text AS row FROM "${table_name}" t`);
    parts.push(...rows.map((row) => row.row));
  }
  return parts.join('\n');
}
