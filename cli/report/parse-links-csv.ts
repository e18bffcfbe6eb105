import { canonicalParticipantJid, InvalidParticipantIdentifierError } from '../../common/participant-identifier.js';
import { memberLinkTextProblem } from '../../lake/index.js';

/** Thrown when a member-links CSV cannot be read; `problems` names every bad line and why. */
export class LinksCsvError extends Error {
  override readonly name = 'LinksCsvError';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(
      problems.length === 1
        ? (problems[0] ?? '')
        : `${problems.length} problems, nothing was imported: ${problems.join('; ')}`
    );
    this.problems = problems;
  }
}

/** One CSV record and the 1-based line of the file it starts on (for error messages). */
interface CsvRecord {
  line: number;
  fields: string[];
}

/**
 * Splits CSV text into records of fields (RFC 4180: quoted fields, doubled quotes, CRLF or LF).
 * @throws LinksCsvError naming the line of a quote that is never closed (it would join every line after it).
 */
function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let field = '';
  let record: string[] = [];
  let isQuoted = false;
  let line = 1;
  let recordLine = 1;
  let quoteLine = 1;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\n') line += 1;
    if (isQuoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') isQuoted = false;
      else field += c;
    } else if (c === '"') {
      isQuoted = true;
      quoteLine = line;
    } else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') {
        i += 1;
        line += 1;
      } else if (c === '\r') line += 1;
      record.push(field);
      records.push({ line: recordLine, fields: record });
      record = [];
      field = '';
      recordLine = line;
    } else field += c;
  }
  if (isQuoted)
    throw new LinksCsvError([
      `line ${String(quoteLine)}: a quoted field is never closed, so every line after it would be part of it; ` +
        'close the quote or remove it',
    ]);
  if (field !== '' || record.length > 0) records.push({ line: recordLine, fields: [...record, field] });
  return records.filter((r) => r.fields.some((value) => value.trim() !== ''));
}

/** The participant as `linkMembers` stores it (its rule), or the problem with its line number. */
function canonicalParticipant(input: string, line: number): { participantId: string } | { problem: string } {
  try {
    return { participantId: canonicalParticipantJid(input, 'participant_id') };
  } catch (err) {
    if (err instanceof InvalidParticipantIdentifierError) return { problem: `line ${String(line)}: ${err.message}` };
    throw err;
  }
}

/**
 * Reads `participant_id,member_id` rows. A header line naming those two columns is
 * required, in any order; an optional `name` column gives the member's name (ADR 0020: the report
 * shows it instead of the participant id; a blank cell is no name); other columns are ignored. A participant listed twice with the same member id
 * is kept once; listed with two different member ids it is refused, naming both lines: the file is
 * ambiguous and a silent "last one wins" would hide an error in the user's export (docs/engagement.md).
 *
 * Participants are read by `linkMembers`' rule (`canonicalParticipantJid`) here already, so that a bad one is
 * reported with its line and two spellings of one participant count as one.
 *
 * Every bad line is reported, not only the first (one problem per run made a long file a
 * dozen runs).
 *
 * @throws LinksCsvError for a quote never closed, a missing header column, or naming every row without both values, participant that
 *   is not a LID, phone JID or phone number, and participant linked to two different member ids; nothing is
 *   returned, so nothing is imported.
 */
export function parseLinksCsv(text: string): { participantId: string; memberId: string; name?: string }[] {
  const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
  const columns = (header?.fields ?? []).map((name) => name.trim().toLowerCase());
  const participantColumn = columns.indexOf('participant_id');
  const memberColumn = columns.indexOf('member_id');
  const nameColumn = columns.indexOf('name');
  if (participantColumn < 0 || memberColumn < 0)
    throw new LinksCsvError(['the first line must name the columns participant_id and member_id']);
  const problems: string[] = [];
  const links = new Map<string, { memberId: string; line: number; name?: string }>();
  for (const row of rows) {
    const rawParticipant = row.fields[participantColumn]?.trim() ?? '';
    const memberId = row.fields[memberColumn]?.trim() ?? '';
    if (!rawParticipant || !memberId) {
      problems.push(`line ${String(row.line)}: participant_id and member_id are both required`);
      continue;
    }
    const canonical = canonicalParticipant(rawParticipant, row.line);
    if ('problem' in canonical) {
      problems.push(canonical.problem);
      continue;
    }
    const { participantId } = canonical;
    const earlier = links.get(participantId);
    if (earlier && earlier.memberId !== memberId) {
      problems.push(
        `lines ${String(earlier.line)} and ${String(row.line)}: participant ${participantId} is linked to two member ids ` +
          `(${earlier.memberId}, ${memberId}); keep one of the two lines`
      );
      continue;
    }
    const name = nameColumn < 0 ? '' : (row.fields[nameColumn]?.trim() ?? '');
    const tooLong =
      memberLinkTextProblem('participant_id', participantId) ??
      memberLinkTextProblem('member_id', memberId) ??
      memberLinkTextProblem('name', name);
    if (tooLong !== null) {
      problems.push(`line ${String(row.line)}: ${tooLong}`);
      continue;
    }
    if (!earlier) links.set(participantId, { memberId, line: row.line, ...(name === '' ? {} : { name }) });
    else if (earlier.name === undefined && name !== '') earlier.name = name;
  }
  if (problems.length > 0) throw new LinksCsvError(problems);
  return [...links].map(([participantId, { memberId, name }]) => ({
    participantId,
    memberId,
    ...(name === undefined ? {} : { name }),
  }));
}
