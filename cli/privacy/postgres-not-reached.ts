import type { VacuumResult } from '../../lake/index.js';

/**
 * The not-reached lines of PostgreSQL's own copies (architecture.md §14, ADR 0027), after `forget` vacuumed the
 * tables it changed ({@link VacuumResult}): a table PostgreSQL refused to vacuum, with the command that does it, and
 * always the write-ahead log, archived WAL, base backups and replicas, how long each keeps the erased values and
 * what an operator runs to shorten it.
 */
export function postgresNotReachedLines(vacuum: VacuumResult): string[] {
  const refused = vacuum.failed.map(
    ({ table, sqlState }) =>
      `PostgreSQL table ${table}: VACUUM was refused (SQLSTATE ${sqlState}), so the replaced row versions keep the ` +
      `erased values in its data files until autovacuum reaches it; run as its owner: psql -c 'VACUUM ${table}'`
  );
  return [
    ...refused,
    'PostgreSQL write-ahead log, archives and backups: the erased values stay in the WAL segments of pg_wal until a ' +
      'checkpoint recycles them and new WAL overwrites them (longer while wal_keep_size, a replication slot or a ' +
      'failing archive_command holds them), in WAL archived by archive_command and in base backups until your ' +
      'archive and backup retention deletes them, and on replicas alike; the tables themselves were vacuumed ' +
      `(plain VACUUM, not FULL: ${vacuum.vacuumed.length} tables). To shorten this, run as a superuser ` +
      `psql -c 'SELECT pg_switch_wal()' -c 'CHECKPOINT', then expire archived WAL and base backups older than this ` +
      'run (pgbackrest expire, barman delete, or your archive_cleanup_command), or wait out their retention',
  ];
}
