import { chmodSync, writeFileSync } from 'node:fs';

/** A field of a libpq password file: `\` and `:` escaped with `\` (PostgreSQL docs, "The Password File"). */
const pgpassField = (value: string): string => value.replaceAll('\\', '\\\\').replaceAll(':', '\\:');

/**
 * The line of a libpq password file (`PGPASSFILE`) for the server and user of `databaseUrl`, any database of it:
 * `host:port:*:user:password`. `psql` and `pg_dump` read the password there, so it stands on no command line (`ps`)
 * and in no printed connection string (ADR 0028).
 */
export function pgpassLine(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const fields = [
    url.hostname,
    url.port || '5432',
    '*',
    decodeURIComponent(url.username),
    decodeURIComponent(url.password),
  ];
  return fields.map((field, index) => (index === 2 ? field : pgpassField(field))).join(':');
}

/** Writes `databaseUrl`'s password to `file` as a libpq password file, mode 0600 (libpq ignores a wider one). */
export function writePgpassFile(file: string, databaseUrl: string): void {
  writeFileSync(file, `${pgpassLine(databaseUrl)}\n`, { mode: 0o600 });
  // `mode` applies only to a file created now; one kept from an earlier run is narrowed here.
  chmodSync(file, 0o600);
}

/** `databaseUrl` without its password (`postgres://postgres@127.0.0.1:5433/wa_lake`): what `psql` is given. */
export function databaseUrlWithoutPassword(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.password = '';
  return url.toString();
}
