import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { stopAll } from '../../../../cli/local-stack/stop-all.js';

describe('stopAll', () => {
  it('stops the next component when one hangs past the timeout, and the first-started one last', async () => {
    const stopped: string[] = [];
    const components = [
      { name: 'temporal-dev-server', stop: () => Promise.resolve(void stopped.push('temporal-dev-server')) },
      { name: 'embedded-postgres', stop: () => new Promise<void>(() => {}) },
      { name: 'ingest-api', stop: () => Promise.resolve(void stopped.push('ingest-api')) },
    ];
    await stopAll(components, pino({ level: 'silent' }), 50);
    expect(stopped).toEqual(['ingest-api', 'temporal-dev-server']);
  });
});
