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

/**
 * Thrown by the repositories when PostgreSQL is up but every pooled connection stayed busy for the pool's
 * connection timeout (`CONNECTION_TIMEOUT_MS`): backpressure, mapped to HTTP 503 `WA_ERR_DATABASE_BUSY` with
 * `Retry-After` so the senders retry later (architecture.md §8).
 */
export class DatabaseBusyError extends Error {
  override readonly name = 'DatabaseBusyError';
  constructor(cause: unknown) {
    super('database busy', { cause });
  }
}

/**
 * Thrown by `rebuildProjections` when the rebuild cannot complete; the transaction was rolled back and
 * the previous projections are untouched. `cause` holds the pg error.
 */
export class RebuildFailedError extends Error {
  override readonly name = 'RebuildFailedError';
  constructor(
    readonly eventsApplied: number,
    cause: unknown
  ) {
    super(`projection rebuild failed after ${eventsApplied} events; previous projections kept`, { cause });
  }
}
