import { stringifyJsonExactly } from '../../common/exact-json-text.js';
import type { ParticipantExport } from '../../lake/index.js';

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

const cell = (value: unknown): string =>
  `<td>${escapeHtml(value === null || value === undefined ? '—' : typeof value === 'string' ? value : stringifyJsonExactly(value))}</td>`;

/** One titled table; "none" when the section is empty, so the reader sees that it was looked for. */
function section<T>(title: string, rows: readonly T[], columns: Array<[string, (row: T) => unknown]>): string {
  const head = `<h2>${escapeHtml(title)} (${String(rows.length)})</h2>`;
  if (rows.length === 0) return `${head}<p class="none">none</p>`;
  const header = columns.map(([name]) => `<th>${escapeHtml(name)}</th>`).join('');
  const body = rows.map((row) => `<tr>${columns.map(([, read]) => cell(read(row))).join('')}</tr>`).join('\n');
  return `${head}<table><thead><tr>${header}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/**
 * The readable page of `wa-lake export` (ADR 0014 decision 7): every section of the JSON as a table, every value
 * escaped, no script and a CSP that forbids any request, like `report --html`.
 */
export function renderParticipantExportHtml(data: ParticipantExport): string {
  const { identifiers, engagement } = data;
  const sections = [
    section(
      'Identifiers',
      [
        ...identifiers.jids.map((value) => ({ kind: 'WhatsApp id', value })),
        ...identifiers.phoneNumbers.map((value) => ({ kind: 'phone number', value })),
        ...identifiers.memberIds.map((value) => ({ kind: 'member id', value })),
      ],
      [
        ['kind', (row) => row.kind],
        ['value', (row) => row.value],
      ]
    ),
    section('Display names', data.displayNames, [
      ['kind', (row) => row.kind],
      ['name', (row) => row.name],
      ['first seen', (row) => row.firstSeenAt],
      ['last seen', (row) => row.lastSeenAt],
      ['messages', (row) => row.messages],
    ]),
    section('Member links', data.memberLinks, [
      ['participant', (row) => row.participantId],
      ['member id', (row) => row.memberId],
      ['name', (row) => row.name],
      ['linked at', (row) => row.linkedAt],
    ]),
    section('Group memberships', data.memberships, [
      ['group', (row) => row.groupSubject ?? row.groupJid],
      ['role', (row) => row.role],
      ['joined', (row) => row.joinedAt],
      ['left', (row) => row.leftAt],
    ]),
    section('Engagement per group', engagement.groups, [
      ['group', (row) => row.groupJid],
      ['level', (row) => row.level],
      ['active days', (row) => row.activeDays],
      ['first active', (row) => row.firstActiveDay],
      ['last active', (row) => row.lastActiveDay],
      ['cohort week', (row) => row.cohortWeek],
      ['messages', (row) => row.messages],
      ['replies', (row) => row.replies],
      ['reactions given', (row) => row.reactionsGiven],
      ['poll votes', (row) => row.pollVotes],
    ]),
    `<p class="meta">${escapeHtml(engagement.criteria)}</p>`,
    section('Messages written', data.messages, [
      ['group', (row) => row.groupJid],
      ['sent', (row) => row.sentAt],
      ['kind', (row) => row.kind],
      ['text', (row) => (row.isRedacted ? '[redacted]' : row.text)],
      ['edited', (row) => row.editedAt.join(', ') || null],
      ['deleted', (row) => row.deletedAt],
      ['reply to', (row) => row.replyToMessageId],
    ]),
    section('Reactions given', data.reactionsGiven, [
      ['group', (row) => row.groupJid],
      ['message', (row) => row.targetMessageId],
      ['reaction', (row) => row.reaction],
      ['at', (row) => row.reactedAt],
    ]),
    section('Messages from imported chat exports', data.exportedChatMessages, [
      ['group', (row) => row.groupJid],
      ['sent', (row) => row.sentAt],
      ['kind', (row) => row.kind],
      ['text', (row) => row.text],
    ]),
    section('Messages sent to this person', data.messagesSentToThem, [
      ['sent by account', (row) => row.accountId],
      ['created', (row) => row.createdAt],
      ['state', (row) => row.state],
      ['category', (row) => row.category],
      ['text', (row) => row.text],
      ['metadata', (row) => row.metadata],
    ]),
    section('Opt-ins', data.optIns, [
      ['account', (row) => row.accountId],
      ['number', (row) => row.phoneJid],
      ['note', (row) => row.note],
      ['at', (row) => row.createdAt],
    ]),
    section('Not reached by this export', data.notReached, [['store', (row) => row]]),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Personal data held by wa-lake</title>
<style>
  body { font-family: system-ui, sans-serif; margin: 24px auto; max-width: 1100px; color: #222; }
  table { border-collapse: collapse; width: 100%; margin-bottom: 8px; } td, th { border: 1px solid #ddd;
  padding: 4px 6px; text-align: left; vertical-align: top; white-space: pre-wrap; } .meta, .none { color: #666; }
</style></head><body>
<h1>Personal data held by wa-lake</h1>
<p class="meta">Asked for ${escapeHtml(data.request.identifier)} (read as ${escapeHtml(data.request.readAs)}),
generated ${escapeHtml(data.generatedAt)}; schema ${escapeHtml(data.schema)} version
${String(data.schemaVersion)}. ${data.isFound ? '' : 'The lake holds nothing of this identifier.'}</p>
${sections.join('\n')}
</body></html>
`;
}
