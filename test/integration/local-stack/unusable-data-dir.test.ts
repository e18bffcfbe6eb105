import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';

describe('wa-lake dev with a data folder it cannot create', () => {
  // Node's recursive mkdir spun at 100 % CPU on /proc/nope and blocked the SIGTERM handler.
  it.runIf(existsSync('/proc/self'))(
    'fails fast with the folder and the reason, and exits 1',
    async () => {
      const run = await runCli(['dev', '--data-dir', '/proc/nope'], { timeoutMs: 60_000 });
      expect(run.signal).toBeNull();
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('cannot use /proc/nope as the data folder (--data-dir)');
      expect(run.stderr).toContain('ENOENT');
    },
    90_000
  );
});
