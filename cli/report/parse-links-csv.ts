/** Thrown when a member-links CSV cannot be read; says which line and why. */
export class LinksCsvError extends Error {
  override readonly name = 'LinksCsvError';
}

/** Splits CSV text into records of fields (RFC 4180: quoted fields, doubled quotes, CRLF or LF). */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let isQuoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (isQuoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') isQuoted = false;
      else field += c;
    } else if (c === '"') isQuoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records.filter((r) => r.some((value) => value.trim() !== ''));
}

/**
 * Reads `participant_id,member_id` rows (issue #11 item 3). A header line naming those two columns is
 * required, in any order; other columns are ignored.
 *
 * @throws LinksCsvError for a missing header column or a row without both values.
 */
export function parseLinksCsv(text: string): { participantId: string; memberId: string }[] {
  const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
  const columns = (header ?? []).map((name) => name.trim().toLowerCase());
  const participantColumn = columns.indexOf('participant_id');
  const memberColumn = columns.indexOf('member_id');
  if (participantColumn < 0 || memberColumn < 0)
    throw new LinksCsvError('the first line must name the columns participant_id and member_id');
  return rows.map((row, index) => {
    const participantId = row[participantColumn]?.trim() ?? '';
    const memberId = row[memberColumn]?.trim() ?? '';
    if (!participantId || !memberId)
      throw new LinksCsvError(`line ${String(index + 2)}: participant_id and member_id are both required`);
    return { participantId, memberId };
  });
}
