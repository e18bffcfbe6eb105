import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/run-cli.js';
import { startDevTemporal, type DevTemporal } from '../../helpers/temporal-dev.js';

let temporal: DevTemporal;
beforeAll(async () => {
  temporal = await startDevTemporal();
}, 120_000);
afterAll(async () => {
  await temporal?.close();
});

describe('wa-lake sending pause|resume for an account that never sent (ADR 0009)', () => {
  it('names the account and why there is no gate, and exits 1', async () => {
    for (const command of ['resume', 'pause']) {
      const result = await runCli(['sending', command, '--account', 'nosuch'], {
        env: { TEMPORAL_ADDRESS: temporal.server.address },
      });
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 1,
        stderr: expect.stringContaining('no send gate for account nosuch (no message was ever sent from it') as string,
      });
      expect(result.stderr).not.toContain('workflow not found');
    }
  }, 120_000);
});
