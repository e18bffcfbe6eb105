import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../common/config-schema.js';
import { loadWorkerConfig } from '../../../worker/config.js';

const REQUIRED = {
  WEBHOOK_URL: 'http://127.0.0.1:8080/api/webhooks/whatsapp',
  WHATSAPP_WEBHOOK_SECRET: 'a-secret-of-sixteen-chars',
};

describe('loadWorkerConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadWorkerConfig(REQUIRED);
    expect(config).toMatchObject({
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'wa-lake-delivery',
      HTTP_TIMEOUT_MS: 15_000,
      ALERT_WINDOW_MS: 900_000,
      LOG_LEVEL: 'info',
    });
    expect(config.WORKER_SHUTDOWN_GRACE_TIME_MS).toBeGreaterThan(config.HTTP_TIMEOUT_MS);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('signs with the first of several rotation secrets', () => {
    const config = loadWorkerConfig({
      ...REQUIRED,
      WHATSAPP_WEBHOOK_SECRET: 'new-secret-0123456789, old-secret-0123456789',
    });
    expect(config.WHATSAPP_WEBHOOK_SECRET).toEqual(['new-secret-0123456789', 'old-secret-0123456789']);
  });

  it('refuses a shutdown grace time that does not exceed the HTTP timeout', () => {
    expect(() =>
      loadWorkerConfig({ ...REQUIRED, HTTP_TIMEOUT_MS: '20000', WORKER_SHUTDOWN_GRACE_TIME_MS: '20000' })
    ).toThrow(/WORKER_SHUTDOWN_GRACE_TIME_MS: must exceed HTTP_TIMEOUT_MS/);
  });

  it('lists every problem at once', () => {
    try {
      loadWorkerConfig({ WHATSAPP_WEBHOOK_SECRET: 'short', HTTP_TIMEOUT_MS: 'soon' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const keys = (err as ConfigError).issues.map((issue) => issue.split(':')[0]?.split('.')[0]);
      expect(keys).toEqual(expect.arrayContaining(['WEBHOOK_URL', 'WHATSAPP_WEBHOOK_SECRET', 'HTTP_TIMEOUT_MS']));
    }
  });

  it('keeps the HTTP timeout below the activity start-to-close timeout', () => {
    expect(() =>
      loadWorkerConfig({ ...REQUIRED, HTTP_TIMEOUT_MS: '60000', WORKER_SHUTDOWN_GRACE_TIME_MS: '90000' })
    ).toThrow(ConfigError);
  });
});
