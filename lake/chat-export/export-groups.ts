import { basename } from 'node:path';
import type pg from 'pg';

// How WhatsApp names an export file (Android `WhatsApp Chat with NAME.txt`, iOS `WhatsApp Chat - NAME.zip`,
// pt-BR `Conversa do WhatsApp com NAME.txt`): the name is the group's subject when it was exported.
const EXPORT_FILE_TITLE = /^(?:WhatsApp Chat with |WhatsApp Chat - |Conversa do WhatsApp com )(.+)\.(?:txt|zip)$/i;

/** The group's name a WhatsApp export's file name carries, or null for a file the user renamed (`android.txt`). */
export function exportTitleOfFileName(path: string): string | null {
  const title = EXPORT_FILE_TITLE.exec(basename(path))?.[1]?.trim();
  return title === undefined || title === '' ? null : title;
}

// A version below every event's (`0|…` untimed, `1|…` timed; lake/projections/group-fields.ts): the export's name
// is the subject only until any captured event writes one, whatever the order of import and capture.
const EXPORT_SUBJECT_VERSION = '0';

// Per group with exported messages, a group row; its subject from the newest export that named the group, kept
// only while the group has none from a captured event.
const UPSERT_EXPORT_GROUPS_SQL = `
  WITH named AS (
    SELECT chat_jid AS jid,
           COALESCE($2::text, (array_agg(payload->'export'->>'group_subject' ORDER BY received_at DESC)
                                 FILTER (WHERE payload->'export'->>'group_subject' IS NOT NULL))[1]) AS subject
      FROM whatsapp_event_logs
     WHERE type = 'export.message' AND ($1::text IS NULL OR chat_jid = $1)
     GROUP BY chat_jid)
  INSERT INTO whatsapp_groups AS g (jid, subject, fields, field_versions)
  SELECT jid, subject,
         CASE WHEN subject IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('subject', subject) END,
         CASE WHEN subject IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('subject', $3::text) END
    FROM named
  ON CONFLICT (jid) DO UPDATE
     SET subject = EXCLUDED.subject, fields = g.fields || EXCLUDED.fields,
         field_versions = g.field_versions || EXCLUDED.field_versions, updated_at = now()
   WHERE EXCLUDED.subject IS NOT NULL
     AND (NOT (g.field_versions ? 'subject') OR g.field_versions->>'subject' = $3::text)`;

/**
 * Makes every group with exported messages a group of the lake (ADR 0029): a `whatsapp_groups` row, so the report,
 * the dashboard and `wa-lake coverage` know it as they know a captured group, with the subject the export names
 * (`subject`, else the newest stored in the rows' `payload.export.group_subject`) until a captured event writes one.
 * The import calls it for its group; `wa-lake rebuild` for all, after the projections are emptied and replayed.
 *
 * @param groupJid - only this group; null for every group with exported messages.
 * @param subject - the name the file being imported gives the group, when it gives one.
 * @throws pg.DatabaseError when the statement fails.
 */
export async function upsertExportGroups(
  db: pg.Pool | pg.ClientBase,
  groupJid: string | null,
  subject: string | null = null
): Promise<void> {
  await db.query(UPSERT_EXPORT_GROUPS_SQL, [groupJid, subject, EXPORT_SUBJECT_VERSION]);
}
