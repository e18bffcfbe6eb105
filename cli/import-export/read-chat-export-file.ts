import { constants, type Stats } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { FileAccessError, toFileAccessError } from '../file-access-error.js';
import { readCapped } from '../read-capped.js';

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

/** Bounds on hostile input (ADR 0023, ADR 0014): a chat text this large is no phone's export. */
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

function decode(bytes: Buffer, path: string): string {
  // WhatsApp writes UTF-8; a UTF-16 file is one an editor re-saved, and would read as no message at all.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    throw new UnusableChatExportError(path, 'is UTF-16 text; WhatsApp writes exports in UTF-8: save it as UTF-8');
  // Not fatal: bytes that are no UTF-8 become U+FFFD, and the parser reports their lines as undecodable.
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/** The bytes of `stream`, refused past `maxBytes` while reading, in the words of an unusable export naming `what`. */
function readExportCapped(stream: Readable, maxBytes: number, path: string, what: string): Promise<Buffer> {
  return readCapped(stream, maxBytes, {
    tooLarge: (max) => new UnusableChatExportError(path, `${what} is larger than ${String(max)} bytes`),
    failed: (err) => new UnusableChatExportError(path, `${what}: ${err.message}`),
  });
}

/**
 * What `path` is, following links: a regular file, or an error in words. A device (a link to `/dev/zero`), a pipe
 * (which would block the read forever) and a folder are refused before anything is opened.
 */
async function statExportFile(path: string): Promise<Stats> {
  const info = await stat(path).catch((err: unknown) => {
    throw toFileAccessError(err, 'read the export', path);
  });
  if (info.isDirectory()) throw new FileAccessError(`cannot read the export ${path}: it is a folder, not a file`);
  if (!info.isFile())
    throw new UnusableChatExportError(path, 'is no regular file (a device, a pipe or a socket): give the export file');
  return info;
}

/** A `.txt` export's bytes, read as a stream with a cap; opened without blocking, and checked again once open. */
async function readTextFile(path: string, maxBytes: number): Promise<Buffer> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((err: unknown) => {
    throw toFileAccessError(err, 'read the export', path);
  });
  try {
    if (!(await handle.stat()).isFile()) throw new UnusableChatExportError(path, 'is no regular file');
    return await readExportCapped(handle.createReadStream({ autoClose: false }), maxBytes, path, 'the text');
  } finally {
    await handle.close();
  }
}

/**
 * Reads a WhatsApp "Export chat" file (ADR 0023): a `.txt` as it is; a `.zip` by its central
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
  // A folder, `~` or /dev/null is said to be what it is before its name is judged.
  const info = await statExportFile(path);
  const extension = extname(path).toLowerCase();
  if (extension !== '.txt' && extension !== '.zip')
    throw new UnusableChatExportError(path, 'expected a .txt or .zip export');
  if (extension === '.txt') {
    if (info.size > limits.maxTextBytes)
      throw new UnusableChatExportError(path, `is larger than ${String(limits.maxTextBytes)} bytes`);
    return { text: decode(await readTextFile(path, limits.maxTextBytes), path), media: {}, chatEntry: null };
  }
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
    return {
      text: decode(await readEntry(zip, chat, path, limits.maxTextBytes), path),
      media,
      chatEntry: chat.fileName,
    };
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
    chosen.length === 0
      ? 'no chat text (.txt) in the zip'
      : `more than one chat text (${chosen.map((entry) => entry.fileName).join(', ')}): cannot tell which is the ` +
          'chat; export one chat per zip'
  );
}

/** The entry's bytes; an entry whose size its header misstates, or that fails to inflate, is named. */
function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, path: string, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) return reject(new UnusableChatExportError(path, `${entry.fileName}: ${err.message}`));
      readExportCapped(stream, maxBytes, path, entry.fileName).then(resolve, reject);
    });
  });
}
