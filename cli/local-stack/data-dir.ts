import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ERASURE_KEY_FILE } from '../../common/erasure-key.js';
import { DirectoryNotCreatedError, makeDirectory } from '../../common/make-directory.js';
import { envPayloadEncryptionKeys, formatPayloadEncryptionKey } from '../../common/payload-encryption-keys.js';
import { privateDirectoryMode, type TightenedPath, tightenPrivateTree } from '../../common/private-files.js';
import { THROWAWAY_CLUSTER_PASSWORD } from '../../dev-stack/embedded-postgres.js';
import { DataDirUnusableError } from './errors.js';

/** Paths inside the local data folder used by `wa-lake dev` and `wa-lake demo` (architecture.md §2). */
export interface DataDirLayout {
  root: string;
  temporalDbFile: string;
  /** The running dev server's pid, kept so a start after a killed `wa-lake dev` stops it (ADR 0017). */
  temporalPidFile: string;
  postgresDir: string;
  outboxPath: string;
  authDir: string;
  secretFile: string;
  /** `PAYLOAD_ENCRYPTION_KEYS` value generated for the dev stack (architecture.md §14). */
  payloadKeyFile: string;
  /** Bearer token of the dev stack's codec server (architecture.md §14). */
  codecTokenFile: string;
  /** Password of the embedded PostgreSQL's `postgres` superuser (ADR 0028), random per data folder. */
  postgresPasswordFile: string;
  /** The same password as a libpq password file (`PGPASSFILE`), so `psql` needs none on its command line. */
  pgpassFile: string;
  /** `ERASURE_KEY` generated for the dev stack (ADR 0027): its ingest API and `wa-lake forget` read it. */
  erasureKeyFile: string;
  /** Paths that were readable by other users and were narrowed (ADR 0014 decision 6), for one warning each. */
  tightened: TightenedPath[];
  /** The running stack's Temporal address, for `wa-lake status --data-dir` ({@link readDevStackFile}). */
  stackFile: string;
}

/** What `wa-lake dev` records of its running stack in the data folder (`stackFile`). */
export interface DevStackFile {
  temporalAddress: string;
}

/** The layout of the data folder at `root` (made absolute), without creating, checking or narrowing anything. */
export function dataDirLayout(root: string): DataDirLayout {
  const absolute = resolve(root);
  return {
    root: absolute,
    temporalDbFile: join(absolute, 'temporal.sqlite'),
    temporalPidFile: join(absolute, 'temporal-dev-server.pid'),
    postgresDir: join(absolute, 'postgres'),
    outboxPath: join(absolute, 'outbox.sqlite'),
    authDir: join(absolute, 'auth'),
    secretFile: join(absolute, 'webhook-secret'),
    payloadKeyFile: join(absolute, 'payload-encryption-keys'),
    codecTokenFile: join(absolute, 'codec-server-token'),
    postgresPasswordFile: join(absolute, 'postgres-password'),
    pgpassFile: join(absolute, 'pgpass'),
    erasureKeyFile: join(absolute, ERASURE_KEY_FILE),
    stackFile: join(absolute, 'dev-stack.json'),
    tightened: [],
  };
}

/** Records the running stack's addresses in `stackFile` (kept after a stop: the last stack's addresses). */
export function writeDevStackFile(stackFile: string, stack: DevStackFile): void {
  writeFileSync(stackFile, `${JSON.stringify(stack)}\n`);
}

/** The addresses {@link writeDevStackFile} recorded, or null when there is no readable file. */
export function readDevStackFile(stackFile: string): DevStackFile | null {
  try {
    const parsed: unknown = JSON.parse(readFileSync(stackFile, 'utf8'));
    const address = (parsed as Partial<DevStackFile> | null)?.temporalAddress;
    return typeof address === 'string' ? { temporalAddress: address } : null;
  } catch {
    return null;
  }
}

/**
 * Creates (if needed) and describes the data folder: Temporal state, embedded PostgreSQL cluster,
 * outbox, WhatsApp auth state, generated webhook secret. The folder is private (ADR 0014 decision 6): 0700
 * (0711 for root, whose PostgreSQL runs as `postgres`), and every file and folder the stack keeps in it except
 * PostgreSQL's own cluster is narrowed to owner-only, each change reported in `tightened`; files the stack did not
 * write keep their modes.
 *
 * @throws DataDirUnusableError when the folder cannot be created or written (e.g. `/proc/nope`, a read-only file
 *   system, no permission); PrivateModeError when a path in it is readable by others and cannot be narrowed.
 */
export function prepareDataDir(root: string): DataDirLayout {
  let absolute: string;
  const created = missingAncestors(root);
  try {
    absolute = makeDirectory(root);
    // Folders made here on the way (`.data` of `.data/demo`) get the data folder's own mode: under umask 077 they
    // would be 0700, which root's embedded PostgreSQL (running as `postgres`) cannot pass through.
    for (const folder of created) chmodSync(folder, privateDirectoryMode());
    // An existing folder on a read-only file system (or without write permission) is refused here, in words,
    // instead of by the first file written into it (ADR 0017).
    accessSync(absolute, constants.W_OK);
  } catch (err) {
    if (err instanceof DirectoryNotCreatedError || (err as NodeJS.ErrnoException).code !== undefined) {
      throw new DataDirUnusableError(root, { cause: err });
    }
    throw err;
  }
  const tightened = tightenStackFiles(absolute);
  // Root's embedded PostgreSQL runs as `postgres`, which must pass through the folder to reach its cluster.
  const mode = statSync(absolute).mode & 0o777;
  if ((mode | privateDirectoryMode()) !== mode) chmodSync(absolute, mode | privateDirectoryMode());
  return { ...dataDirLayout(absolute), tightened };
}

/**
 * Names the stack writes at the top of its data folder; PostgreSQL's cluster (`postgres`) checks its own modes. A
 * secret file missing here would make the folder look shared with the user's own files, so neither it nor the
 * folder would be narrowed (data-dir.test.ts writes every file the layout names).
 */
const STACK_ENTRY =
  /^(auth|webhook-secret|payload-encryption-keys|codec-server-token|postgres-password|pgpass|erasure-key|dev-stack\.json|temporal-dev-server\.pid|engagement-report\.html|\.wa-lake-demo-folder|collector-status\.json.*|temporal\.sqlite.*|outbox\.sqlite.*|wa-lake-dev\..*)$/;

/**
 * Narrows what the stack keeps in the folder (ADR 0014 decision 6), never a file it did not write: a folder that
 * holds only the stack's files (or nothing) is narrowed as a whole; in a folder shared with other files (`--data-dir`
 * pointed at a folder of one's own) only the stack's entries are, and the folder keeps its mode.
 */
function tightenStackFiles(absolute: string): TightenedPath[] {
  const entries = readdirSync(absolute).filter((name) => name !== 'postgres');
  const stackOnly = entries.every((name) => STACK_ENTRY.test(name));
  if (stackOnly)
    return tightenPrivateTree(absolute, { skip: ['postgres'], rootOtherBits: privateDirectoryMode() & 0o077 });
  return entries.filter((name) => STACK_ENTRY.test(name)).flatMap((name) => tightenPrivateTree(join(absolute, name)));
}

/** The folders above `root` (made absolute) that do not exist yet, outermost first. */
function missingAncestors(root: string): string[] {
  const missing: string[] = [];
  for (let folder = dirname(resolve(root)); !existsSync(folder) && folder !== dirname(folder); folder = dirname(folder))
    missing.unshift(folder);
  return missing;
}

/**
 * Returns the dev stack's shared webhook secret: generated once (32 random bytes, hex) and kept in
 * `secretFile` (mode 0600) so restarts keep signing with the same key (architecture.md §2 "a generated shared secret").
 */
export function loadOrCreateWebhookSecret(secretFile: string): string {
  if (existsSync(secretFile)) {
    const existing = readFileSync(secretFile, 'utf8').trim();
    if (existing.length >= 16) return existing;
  }
  const secret = randomBytes(32).toString('hex');
  writeFileSync(secretFile, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * Returns the password of the data folder's embedded PostgreSQL (ADR 0028), kept in `layout.postgresPasswordFile`
 * (mode 0600): generated once (32 random bytes, hex) for a new cluster, so no other local user can log in as its
 * superuser (and run `COPY … FROM PROGRAM`) with a password printed in the README. A cluster made before the file
 * existed keeps the fixed password it was made with, now written to the file, so the folder keeps working.
 */
export function loadOrCreatePostgresPassword(
  layout: Pick<DataDirLayout, 'postgresPasswordFile' | 'postgresDir'>
): string {
  if (existsSync(layout.postgresPasswordFile)) {
    const existing = readFileSync(layout.postgresPasswordFile, 'utf8').trim();
    if (existing.length > 0) return existing;
  }
  const isOldCluster = existsSync(join(layout.postgresDir, 'PG_VERSION'));
  const password = isOldCluster ? THROWAWAY_CLUSTER_PASSWORD : randomBytes(32).toString('hex');
  writeFileSync(layout.postgresPasswordFile, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * Returns the dev stack's `ERASURE_KEY` (ADR 0027): generated once (32 random bytes, hex) and kept in `keyFile`
 * (mode 0600) beside the outbox, where `wa-lake forget` finds it; a lost key would let erased members back in.
 */
export function loadOrCreateErasureKey(keyFile: string): string {
  if (existsSync(keyFile)) {
    const existing = readFileSync(keyFile, 'utf8').trim();
    if (existing.length >= 32) return existing;
  }
  const key = randomBytes(32).toString('hex');
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  return key;
}

/**
 * Returns the dev stack's `PAYLOAD_ENCRYPTION_KEYS` value (architecture.md §14): generated once (`dev1:` + 32
 * random bytes in base64) and kept in `keyFile` (mode 0600), so histories written by an earlier run stay
 * readable. A file edited by hand (e.g. a rotated list) is kept when it parses.
 */
export function loadOrCreatePayloadEncryptionKeys(keyFile: string): string {
  if (existsSync(keyFile)) {
    const existing = readFileSync(keyFile, 'utf8').trim();
    if (envPayloadEncryptionKeys.safeParse(existing).data?.length) return existing;
  }
  const value = formatPayloadEncryptionKey('dev1', randomBytes(32));
  writeFileSync(keyFile, `${value}\n`, { mode: 0o600 });
  return value;
}
