/** Thrown by `runMigrations` when a migration fails or the database cannot be reached. */
export class MigrationFailedError extends Error {
  override readonly name = 'MigrationFailedError';
  constructor(cause: unknown) {
    super('database migration failed', { cause });
  }
}

/** Thrown by the repositories when PostgreSQL cannot be reached or refuses connections (maps to HTTP 503). */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
  constructor(cause: unknown) {
    super('database unavailable', { cause });
  }
}
