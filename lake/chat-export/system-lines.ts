const MARKS = /[\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;
// iOS opens the text of a system line with a left-to-right mark.
const SYSTEM_MARK = /^\u200E/;

// The end-to-end notice in every wording the lake knows (English and Portuguese, current and older): a system
// line whoever the author is, since no one opens a message with these words.
const ENCRYPTION_NOTICE = new RegExp(
  '^(?:messages and calls are end-to-end encrypted' +
    '|messages (?:you send )?to this group are now secured with end-to-end encryption' +
    '|as mensagens e (?:as )?(?:chamadas|ligações) são protegidas com a criptografia de ponta a ponta' +
    '|as mensagens (?:enviadas|que você envia) (?:a|para) este grupo (?:agora )?(?:estão|são) protegidas)',
  'i'
);

// What WhatsApp writes for a group event (English and Portuguese), matched only on lines written under the group's
// own name: a person writing "Bob left early" stays a message.
const SYSTEM_PHRASES: readonly RegExp[] = [
  /^(?:you|.+) (?:added|removed) .+$/i,
  /^you were (?:added|removed)$/i,
  /^.+ (?:left|joined)$/i,
  /^.+ joined (?:using (?:this|the) group's invite link|from the community|via .+)$/i,
  /\bcreated (?:the )?(?:group|this group)\b/i,
  /\bchanged (?:the subject|the group name|this group's (?:icon|name|description|settings)|the group description)/i,
  /\bdeleted (?:this group's icon|the group description)/i,
  /\bsecurity code\b/i,
  /\bend-to-end encrypt/i,
  /\bchanged (?:their phone number|to \+)/i,
  /\b(?:now|no longer) an admin\b/i,
  /\b(?:turned (?:on|off) )?disappearing messages\b/i,
  /\breset this group's invite link\b/i,
  /\bpinned a message\b/i,
  /^(?:você|.+) (?:adicionou|removeu) .+$/i,
  /^você foi (?:adicionad|removid)[oa]$/i,
  /^.+ (?:saiu|entrou)$/i,
  /^.+ entrou (?:usando o link de convite|pela comunidade)/i,
  /\bcriou (?:o|este) grupo\b/i,
  /\b(?:mudou|alterou) (?:o nome|o assunto|a (?:imagem|foto|descrição) d(?:o|este) grupo|a descrição)/i,
  /\bapagou a (?:imagem|foto|descrição) d(?:o|este) grupo\b/i,
  /\bcódigo de segurança\b/i,
  /\bcriptografia de ponta a ponta\b/i,
  /\bmudou (?:seu número|o número|para \+)/i,
  /\b(?:agora é|não é mais) admin/i,
  /\bmensagens temporárias\b/i,
  /\b(?:mudou|alterou) as configurações\b/i,
  /\bredefiniu o link de convite\b/i,
  /\bfixou uma mensagem\b/i,
];

const plain = (text: string): string => text.replace(MARKS, '').trim();

/** Whether a line's text is the end-to-end notice, a system line whoever wrote it. */
export function isEncryptionNotice(text: string): boolean {
  return ENCRYPTION_NOTICE.test(plain(text));
}

/** A header line read by the parser: its author (normalized; null for a system line) and text. */
export interface AuthoredLine {
  author: string | null;
  text: string;
}

/**
 * The names a system line is written under (ADR 0023). Android writes system lines without an author; iOS writes
 * them under the group's name: the author of its end-to-end notice, else of its first line that opens with the
 * system mark and reads like a group event. `subjects` (the lake's known subject of the group) are added
 * whatever the layout.
 *
 * @param isIos - whether the file has iOS's `[date, time] author: text` headers.
 */
export function findGroupAuthors(
  lines: readonly AuthoredLine[],
  isIos: boolean,
  subjects: readonly string[]
): Set<string> {
  const names = new Set(subjects.map(plain).filter((name) => name !== ''));
  const named = isIos ? findExportGroupName(lines) : null;
  if (named !== null) names.add(named);
  return names;
}

/**
 * The group's name as an iOS export writes it: the author of its end-to-end notice, else of its first line that
 * opens with the system mark and reads like a group event; null when no line tells (an Android export writes
 * system lines without an author).
 */
export function findExportGroupName(lines: readonly AuthoredLine[]): string | null {
  const authored = lines.filter((line): line is { author: string; text: string } => line.author !== null);
  const named =
    authored.find((line) => isEncryptionNotice(line.text)) ??
    authored.find(
      (line) => SYSTEM_MARK.test(line.text) && SYSTEM_PHRASES.some((phrase) => phrase.test(plain(line.text)))
    );
  return named?.author ?? null;
}

/**
 * Whether a line written under `author` is a system line: the end-to-end notice, or a line under one of
 * `groupAuthors` that reads like a group event or opens with iOS's system mark.
 */
export function isSystemLine(author: string, text: string, groupAuthors: ReadonlySet<string>): boolean {
  if (isEncryptionNotice(text)) return true;
  if (!groupAuthors.has(author)) return false;
  return SYSTEM_MARK.test(text) || SYSTEM_PHRASES.some((phrase) => phrase.test(plain(text)));
}
