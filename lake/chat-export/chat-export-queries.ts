import type pg from 'pg';

/** One local day (engagement time zone) of a group with exported messages (ADR 0023). */
export interface ExportDay {
  day: string;
  messages: number;
  /** The lake observed the day (coverage or a captured message): its exported messages do not count. */
  isObserved: boolean;
}

/** A sender of exported messages no participant could be found for (ADR 0023). */
export interface UnresolvedExportSender {
  /** The sender as the export wrote it. */
  sender: string;
  /** The key its messages count under until linked: give it to `wa-lake members link KEY MEMBER_ID`. */
  participantKey: string;
  messages: number;
}

/** How the senders of a group's exported messages resolved: messages per way. */
export interface ExportSenderSummary {
  /** `phone` (a phone number), `member` (a `members import` name), `push` (a push name), `link` (a
   * `members link` of the name's key), `unresolved`. */
  messagesBy: Record<string, number>;
  unresolved: UnresolvedExportSender[];
}

/**
 * The days of `groupJid` with exported messages, ascending, and whether each counts (`whatsapp_export_days`):
 * exported messages count only on days the lake did not observe.
 * @throws pg.DatabaseError when the query fails.
 */
export async function readExportDays(pool: pg.Pool, groupJid: string): Promise<ExportDay[]> {
  const { rows } = await pool.query<{ day: string; messages: number; is_counted: boolean }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, messages, is_counted FROM whatsapp_export_days
      WHERE group_jid = $1 ORDER BY day`,
    [groupJid]
  );
  return rows.map((row) => ({ day: row.day, messages: row.messages, isObserved: !row.is_counted }));
}

/**
 * How the senders of `groupJid`'s exported messages resolve now (`whatsapp_export_messages`, read time): a link or
 * a name the lake learns later changes the answer without a new import.
 * @throws pg.DatabaseError when the query fails.
 */
export async function readExportSenders(pool: pg.Pool, groupJid: string): Promise<ExportSenderSummary> {
  const { rows } = await pool.query<{ resolved_by: string; sender: string | null; key: string; messages: number }>(
    `WITH resolved AS (
       SELECT CASE WHEN m.resolved_by = 'unresolved' AND i.member_id IS NOT NULL THEN 'link' ELSE m.resolved_by END
                AS resolved_by, m.sender_name, m.participant_key
         FROM whatsapp_export_messages m
         LEFT JOIN whatsapp_member_identities i ON i.participant_id = m.participant_key
        WHERE m.group_jid = $1)
     SELECT resolved_by, CASE WHEN resolved_by = 'unresolved' THEN sender_name END AS sender,
            CASE WHEN resolved_by = 'unresolved' THEN participant_key ELSE '' END AS key, count(*)::int AS messages
       FROM resolved GROUP BY 1, 2, 3 ORDER BY 4 DESC, 2`,
    [groupJid]
  );
  const summary: ExportSenderSummary = { messagesBy: {}, unresolved: [] };
  for (const row of rows) {
    summary.messagesBy[row.resolved_by] = (summary.messagesBy[row.resolved_by] ?? 0) + row.messages;
    if (row.resolved_by === 'unresolved' && row.sender !== null)
      summary.unresolved.push({ sender: row.sender, participantKey: row.key, messages: row.messages });
  }
  return summary;
}

/**
 * Per group, the local days whose engagement numbers come from exported messages (ADR 0023): `wa-lake
 * coverage` marks them.
 * @throws pg.DatabaseError when the query fails.
 */
export async function readExportCountedDays(pool: pg.Pool, groupJid: string | null): Promise<Map<string, string[]>> {
  const { rows } = await pool.query<{ group_jid: string; day: string }>(
    `SELECT group_jid, to_char(day, 'YYYY-MM-DD') AS day FROM whatsapp_export_days
      WHERE is_counted AND ($1::text IS NULL OR group_jid = $1) ORDER BY group_jid, day`,
    [groupJid]
  );
  const byGroup = new Map<string, string[]>();
  for (const row of rows) byGroup.set(row.group_jid, [...(byGroup.get(row.group_jid) ?? []), row.day]);
  return byGroup;
}

/**
 * Whether the lake knows `groupJid`: a group row, or any event of it (captured, or exported by an earlier import).
 * An import into a group it does not know is most often a mistyped JID, which would make a phantom group.
 * @throws pg.DatabaseError when the query fails.
 */
export async function isExportGroupKnown(pool: pg.Pool, groupJid: string): Promise<boolean> {
  const { rows } = await pool.query<{ known: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM whatsapp_groups WHERE jid = $1)
         OR EXISTS (SELECT 1 FROM whatsapp_event_logs WHERE chat_jid = $1) AS known`,
    [groupJid]
  );
  return rows[0]?.known ?? false;
}
