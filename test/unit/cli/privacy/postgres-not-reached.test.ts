import { describe, expect, it } from 'vitest';
import { postgresNotReachedLines } from '../../../../cli/privacy/postgres-not-reached.js';
import { tablesChangedByErasure } from '../../../../lake/privacy/vacuum-erased-tables.js';

describe('postgresNotReachedLines (what forget says of PostgreSQL’s own copies)', () => {
  it('names the WAL, its archive, base backups and replicas, how long they keep data and the commands', () => {
    const [line, ...rest] = postgresNotReachedLines({
      vacuumed: ['whatsapp_event_logs', 'whatsapp_groups'],
      failed: [],
    });
    expect(rest).toEqual([]);
    expect(line).toBe(
      'PostgreSQL write-ahead log, archives and backups: the erased values stay in the WAL segments of pg_wal until ' +
        'a checkpoint recycles them and new WAL overwrites them (longer while wal_keep_size, a replication slot or a ' +
        'failing archive_command holds them), in WAL archived by archive_command and in base backups until your ' +
        'archive and backup retention deletes them, and on replicas alike; the tables themselves were vacuumed ' +
        "(plain VACUUM, not FULL: 2 tables). To shorten this, run as a superuser psql -c 'SELECT pg_switch_wal()' " +
        "-c 'CHECKPOINT', then expire archived WAL and base backups older than this run (pgbackrest expire, barman " +
        'delete, or your archive_cleanup_command), or wait out their retention'
    );
  });

  it('names a table PostgreSQL refused to vacuum, with the command its owner runs', () => {
    const lines = postgresNotReachedLines({ vacuumed: [], failed: [{ table: 'whatsapp_groups', sqlState: '42501' }] });
    expect(lines[0]).toBe(
      'PostgreSQL table whatsapp_groups: VACUUM was refused (SQLSTATE 42501), so the replaced row versions keep the ' +
        "erased values in its data files until autovacuum reaches it; run as its owner: psql -c 'VACUUM whatsapp_groups'"
    );
    expect(lines).toHaveLength(2);
  });
});

describe('tablesChangedByErasure', () => {
  it('lists each table an erasure changed once: pseudonymized columns, redacted and deleted rows, kept reports', () => {
    const counts = {
      messageBodiesRedacted: 1,
      aliasesDeleted: 0,
      participantsDeleted: 2,
      memberLinksDeleted: 0,
      optInsDeleted: 0,
      testRecipientsDeleted: 0,
      sentMessagesRedacted: 1,
      pseudonymized: { 'whatsapp_event_logs.payload': 3, 'whatsapp_groups.owner': 1, 'whatsapp_groups.raw': 1 },
    };
    expect(tablesChangedByErasure(counts)).toEqual([
      'engagement_kept_reports',
      'outbound_messages',
      'whatsapp_event_logs',
      'whatsapp_groups',
      'whatsapp_participants',
    ]);
  });
});
