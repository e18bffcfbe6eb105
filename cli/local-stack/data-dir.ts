import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Paths inside the local data folder used by `wa-lake dev` and `wa-lake demo` (DESIGN §2). */
export interface DataDirLayout {
  root: string;
  temporalDbFile: string;
  postgresDir: string;
  outboxPath: string;
  authDir: string;
  secretFile: string;
}

/**
 * Creates (if needed) and describes the data folder: Temporal state, embedded PostgreSQL cluster,
 * outbox, WhatsApp auth state, generated webhook secret.
 */
export function prepareDataDir(root: string): DataDirLayout {
  const absolute = resolve(root);
  mkdirSync(absolute, { recursive: true });
  return {
    root: absolute,
    temporalDbFile: join(absolute, 'temporal.sqlite'),
    postgresDir: join(absolute, 'postgres'),
    outboxPath: join(absolute, 'outbox.sqlite'),
    authDir: join(absolute, 'auth'),
    secretFile: join(absolute, 'webhook-secret'),
  };
}

/**
 * Returns the dev stack's shared webhook secret: generated once (32 random bytes, hex) and kept in
 * `secretFile` (mode 0600) so restarts keep signing with the same key (DESIGN §2 "a generated shared secret").
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
