import { readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import yauzl from 'yauzl';

/** Thrown when an export file is refused as a whole: nothing of it is imported. */
export class UnusableChatExportError extends Error {
  override readonly name = 'UnusableChatExportError';
  constructor(
    readonly path: string,
    reason: string
  ) {
    super(`${path}: ${reason}`);
  }
}

/** The chat text of an export file and, for a `.zip`, how many media files of each kind it holds (never read). */
export interface ChatExportFile {
  text: string;
  /** `image`, `video`, `audio`, `sticker`, `document`, `contact`, `other` → files; empty for a `.txt`. */
  media: Record<string, number>;
  /** The `.txt` entry read from a `.zip`; null for a `.txt` file. */
  chatEntry: string | null;
}

/** Bounds on hostile input (issue #30 item 4, ADR 0014): a chat text this large is no phone's export. */
export interface ChatExportLimits {
  maxTextBytes: number;
  maxZipEntries: number;
  /** Uncompressed size of the chat text over its compressed size, above which the `.zip` is a bomb. */
  maxCompressionRatio: number;
}

export const DEFAULT_CHAT_EXPORT_LIMITS: ChatExportLimits = {
  maxTextBytes: 512 * 1024 * 1024,
  maxZipEntries: 100_000,
  maxCompressionRatio: 200,
};

const MEDIA_KINDS: Record<string, string> = {
  jpg: 'image',
  jpeg: 'image',
  png: 'image',
  heic: 'image',
  gif: 'image',
  mp4: 'video',
  mov: 'video',
  '3gp': 'video',
  m4v: 'video',
  opus: 'audio',
  ogg: 'audio',
  m4a: 'audio',
  mp3: 'audio',
  aac: 'audio',
  amr: 'audio',
  wav: 'audio',
  webp: 'sticker',
  pdf: 'document',
  doc: 'document',
  docx: 'document',
  xls: 'document',
  xlsx: 'document',
  ppt: 'document',
  pptx: 'document',
  txt: 'document',
  csv: 'document',
  zip: 'document',
  vcf: 'contact',
};

// The chat's own text: iOS names it `_chat.txt`, Android `WhatsApp Chat with NAME.txt` (`Conversa do WhatsApp com …`).
function isChatTextName(fileName: string): boolean {
  const name = basename(fileName).toLowerCase();
  if (!name.endsWith('.txt')) return false;
  return name === '_chat.txt' || ['whatsapp chat', 'conversa do whatsapp'].some((start) => name.startsWith(start));
}

function decode(bytes: Buffer): string {
  // Not fatal: bytes that are no UTF-8 become U+FFFD, and the parser reports their lines as undecodable.
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/**
 * Reads a WhatsApp "Export chat" file (issue #30 items 1 and 4): a `.txt` as it is; a `.zip` by its central
 * directory, reading only the chat text (`_chat.txt`, `WhatsApp Chat with ….txt`, else the only `.txt`) and
 * counting every other entry as media by its extension. Media bytes are never read or written anywhere. A `.zip`
 * is hostile input: entry names must be relative paths inside it (yauzl refuses `..` and absolute ones), at most
 * `maxZipEntries` entries, the text at most `maxTextBytes` and at most `maxCompressionRatio` times its compressed
 * size, and its actual size must equal the declared one (yauzl's `validateEntrySizes`).
 *
 * @throws UnusableChatExportError naming what is wrong; the `fs` error when the file cannot be read.
 */
export async function readChatExportFile(
  path: string,
  limits: ChatExportLimits = DEFAULT_CHAT_EXPORT_LIMITS
): Promise<ChatExportFile> {
  const extension = extname(path).toLowerCase();
  if (extension === '.txt') {
    if ((await stat(path)).size > limits.maxTextBytes)
      throw new UnusableChatExportError(path, `larger than ${limits.maxTextBytes} bytes`);
    return { text: decode(await readFile(path)), media: {}, chatEntry: null };
  }
  if (extension !== '.zip') throw new UnusableChatExportError(path, 'expected a .txt or .zip export');
  const zip = await openZip(path);
  try {
    const entries = await listEntries(zip, path, limits);
    const chat = chooseChatEntry(entries, path);
    const media: Record<string, number> = {};
    for (const entry of entries) {
      if (entry === chat || entry.fileName.endsWith('/')) continue;
      const kind = MEDIA_KINDS[extname(entry.fileName).slice(1).toLowerCase()] ?? 'other';
      media[kind] = (media[kind] ?? 0) + 1;
    }
    if (chat.uncompressedSize > limits.maxTextBytes)
      throw new UnusableChatExportError(path, `${chat.fileName} is larger than ${limits.maxTextBytes} bytes`);
    if (chat.uncompressedSize > Math.max(chat.compressedSize, 1) * limits.maxCompressionRatio)
      throw new UnusableChatExportError(path, `${chat.fileName} expands more than ${limits.maxCompressionRatio}×`);
    return { text: decode(await readEntry(zip, chat)), media, chatEntry: chat.fileName };
  } finally {
    zip.close();
  }
}

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(
      path,
      { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: true },
      (err, zip) =>
        err ? reject(new UnusableChatExportError(path, `not a readable zip (${err.message})`)) : resolve(zip)
    );
  });
}

function listEntries(zip: yauzl.ZipFile, path: string, limits: ChatExportLimits): Promise<yauzl.Entry[]> {
  if (zip.entryCount > limits.maxZipEntries)
    return Promise.reject(new UnusableChatExportError(path, `more than ${limits.maxZipEntries} entries`));
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', (err: Error) => reject(new UnusableChatExportError(path, `unusable zip entry (${err.message})`)));
    zip.readEntry();
  });
}

function chooseChatEntry(entries: readonly yauzl.Entry[], path: string): yauzl.Entry {
  const named = entries.filter((entry) => isChatTextName(entry.fileName));
  const texts = entries.filter((entry) => entry.fileName.toLowerCase().endsWith('.txt'));
  const chosen = named.length === 1 ? named : texts;
  if (chosen.length === 1 && chosen[0]) return chosen[0];
  throw new UnusableChatExportError(
    path,
    chosen.length === 0 ? 'no chat text (.txt) in the zip' : 'more than one .txt: cannot tell which is the chat'
  );
}

function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(err);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', reject);
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}
