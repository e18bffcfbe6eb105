import { describe, expect, it } from 'vitest';
import { loadCollectorConfig } from '../../../collector/config.js';
import { createRootLogger } from '../../../common/logger.js';
import { warnRenamedEnvKeys } from '../../../common/renamed-env-keys.js';

describe('loadCollectorConfig', () => {
  it('reads the outbox relay keys under their OUTBOX_RELAY_* names', () => {
    const config = loadCollectorConfig({ OUTBOX_RELAY_BATCH_SIZE: '7', OUTBOX_RELAY_CONCURRENCY: '3' });
    expect([config.OUTBOX_RELAY_BATCH_SIZE, config.OUTBOX_RELAY_CONCURRENCY]).toEqual([7, 3]);
    expect(config.renamedEnvKeys).toEqual([]);
  });

  it('still reads the old SEND_* names of the outbox relay for one release, and names each one', () => {
    const config = loadCollectorConfig({
      SEND_BATCH_SIZE: '7',
      SEND_CONCURRENCY: '3',
      SEND_START_TIMEOUT_MS: '500',
      SEND_RETRY_BASE_DELAY_MS: '20',
      SEND_RETRY_MAX_DELAY_MS: '40',
    });
    expect([
      config.OUTBOX_RELAY_BATCH_SIZE,
      config.OUTBOX_RELAY_CONCURRENCY,
      config.OUTBOX_RELAY_START_TIMEOUT_MS,
      config.OUTBOX_RELAY_RETRY_BASE_DELAY_MS,
      config.OUTBOX_RELAY_RETRY_MAX_DELAY_MS,
    ]).toEqual([7, 3, 500, 20, 40]);
    expect(config.renamedEnvKeys.map((key) => key.newName)).toEqual([
      'OUTBOX_RELAY_BATCH_SIZE',
      'OUTBOX_RELAY_CONCURRENCY',
      'OUTBOX_RELAY_START_TIMEOUT_MS',
      'OUTBOX_RELAY_RETRY_BASE_DELAY_MS',
      'OUTBOX_RELAY_RETRY_MAX_DELAY_MS',
    ]);
  });

  it('lets the new name win when both are set', () => {
    const config = loadCollectorConfig({ SEND_BATCH_SIZE: '7', OUTBOX_RELAY_BATCH_SIZE: '9' });
    expect(config.OUTBOX_RELAY_BATCH_SIZE).toBe(9);
    expect(config.renamedEnvKeys).toEqual([{ oldName: 'SEND_BATCH_SIZE', newName: 'OUTBOX_RELAY_BATCH_SIZE' }]);
  });

  it('validates an old name as strictly as the new one', () => {
    expect(() => loadCollectorConfig({ SEND_CONCURRENCY: '0' })).toThrow(/OUTBOX_RELAY_CONCURRENCY/);
  });

  it('logs one pino warning per old name, naming its replacement', () => {
    const lines: string[] = [];
    const logger = createRootLogger({ level: 'info', destination: { write: (line: string) => void lines.push(line) } });
    warnRenamedEnvKeys(logger, loadCollectorConfig({ SEND_CONCURRENCY: '3' }).renamedEnvKeys);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        level: 40,
        key: 'SEND_CONCURRENCY',
        replacement: 'OUTBOX_RELAY_CONCURRENCY',
        msg: 'deprecated environment variable, read for one more release',
      }),
    ]);
  });
});
