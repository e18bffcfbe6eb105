import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createDatabase, dropDatabase } from '../../../dev-stack/scratch-databases.js';
import { runCli } from '../../helpers/run-cli.js';

// A lake command on a database `wa-lake migrate` never ran on meets a missing table (SQLSTATE 42P01): the words
// say what to do, not only `relation "…" does not exist` (cli/report-failure.ts).
describe('wa-lake on a database that was never migrated', () => {
  let url = '';
  beforeAll(async () => {
    url = await createDatabase(inject('databaseUrl'), `wa_lake_${randomUUID().replaceAll('-', '').slice(0, 16)}`);
  });
  afterAll(async () => {
    if (url) await dropDatabase(url);
  });

  it.each([[['report', '--json']], [['members', 'list']]])(
    '%j says the lake is not migrated and to run wa-lake migrate, with exit code 1',
    async (args) => {
      const run = await runCli(args, { env: { DATABASE_URL: url } });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^wa-lake: the lake at DATABASE_URL is not migrated \(relation "\w+" does not exist\)/
      );
      expect(run.stderr).toContain('run `wa-lake migrate` against it first');
      expect(run.stdout).toBe('');
    },
    60_000
  );
});
