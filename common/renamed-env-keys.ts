import type { Logger } from './logger.js';

/**
 * Environment keys renamed in this release, still read under their old name for one release (ADR 0021).
 * Each process's `config.ts` lists its renames; the process logs one pino warning per old name it found, naming
 * the new one (architecture.md §11).
 */

/** An old key that was set, and the key that replaces it. */
export interface RenamedEnvKey {
  oldName: string;
  newName: string;
}

/**
 * Copies `env` with every old key's value under its new name when the new name is unset (the new name wins
 * when both are set), and lists the old names that were set.
 *
 * @param renames - old name → new name.
 */
export function applyRenamedEnvKeys(
  env: Readonly<Record<string, string | undefined>>,
  renames: Readonly<Record<string, string>>
): { env: Record<string, string | undefined>; renamed: RenamedEnvKey[] } {
  const next: Record<string, string | undefined> = { ...env };
  const renamed: RenamedEnvKey[] = [];
  for (const [oldName, newName] of Object.entries(renames)) {
    const value = env[oldName];
    if (value === undefined) continue;
    renamed.push({ oldName, newName });
    if (env[newName] === undefined) next[newName] = value;
    delete next[oldName];
  }
  return { env: next, renamed };
}

/** The pino warning for each renamed key that was set. */
export function warnRenamedEnvKeys(logger: Logger, renamed: readonly RenamedEnvKey[]): void {
  for (const { oldName, newName } of renamed) {
    logger.warn({ key: oldName, replacement: newName }, 'deprecated environment variable, read for one more release');
  }
}
