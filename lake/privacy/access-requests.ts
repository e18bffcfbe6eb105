import type pg from 'pg';
import type { ParticipantExport } from './participant-export.js';

/** Counts of one export, for its run record: how many rows of each section, nothing else. */
export function countExport(data: ParticipantExport): Record<string, number> {
  return {
    identifiers: data.identifiers.jids.length + data.identifiers.memberIds.length,
    displayNames: data.displayNames.length,
    memberLinks: data.memberLinks.length,
    memberships: data.memberships.length,
    messages: data.messages.length,
    reactionsGiven: data.reactionsGiven.length,
    exportedChatMessages: data.exportedChatMessages.length,
    engagementGroups: data.engagement.groups.length,
    messagesSentToThem: data.messagesSentToThem.length,
    optIns: data.optIns.length,
  };
}

/** Records one export in `whatsapp_access_requests`: who, when, counts, where — never the identifier or data. */
export async function recordAccessRequest(
  pool: pg.Pool,
  run: { id: string; requestedBy: string; readAs: string; counts: Record<string, number>; writtenTo: string }
): Promise<void> {
  await pool.query(
    `INSERT INTO whatsapp_access_requests (id, requested_by, read_as, counts, written_to) VALUES ($1, $2, $3, $4, $5)`,
    [run.id, run.requestedBy, run.readAs, JSON.stringify(run.counts), run.writtenTo]
  );
}
