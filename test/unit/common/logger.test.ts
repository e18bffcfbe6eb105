import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createRootLogger } from '../../../common/logger.js';
import { PROJECT_DIR } from '../../helpers/compose-file.js';

function captureLogger(): { logger: ReturnType<typeof createRootLogger>; lines: string[] } {
  const lines: string[] = [];
  const logger = createRootLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } });
  return { logger, lines };
}

const SECRET_PASSWORD = 'pw-that-must-never-be-logged';

describe('createRootLogger', () => {
  it('logs a pg-pool idle-client error without the pg client it carries', () => {
    const { logger, lines } = captureLogger();
    const client = new pg.Client({ connectionString: `postgres://lake:${SECRET_PASSWORD}@127.0.0.1:1/wa_lake` });
    // pg-pool's idle listener does exactly this before emitting the pool's 'error' event.
    const err = Object.assign(new Error('Connection terminated unexpectedly'), { client });
    logger.child({ component: 'pg-pool' }).warn({ err }, 'idle database client failed');
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!) as { err: Record<string, unknown> };
    expect(record.err).toMatchObject({ message: 'Connection terminated unexpectedly', client: '[Client]' });
    expect(lines[0]).not.toContain(SECRET_PASSWORD);
    expect(lines[0]).not.toContain('connectionParameters');
    expect(lines[0]!.length).toBeLessThan(2_000);
  });

  it('summarizes a socket, a request or a client passed as a field, and inside an error cause', () => {
    const { logger, lines } = captureLogger();
    const socket = new Socket();
    const request = new IncomingMessage(socket);
    const cause = Object.assign(new Error('socket hang up'), { socket });
    logger.error(
      { socket, request, pool: new pg.Pool(), err: new Error('outer', { cause }), eventId: 'e1' },
      'request failed'
    );
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(record).toMatchObject({
      socket: '[Socket]',
      request: '[IncomingMessage]',
      pool: '[BoundPool]',
      eventId: 'e1',
      err: { message: 'outer: socket hang up' },
    });
    expect(lines[0]).not.toContain('_readableState');
    socket.destroy();
  });

  it('keeps plain data fields and error codes as they are', () => {
    const { logger, lines } = captureLogger();
    const err = Object.assign(new Error('refused'), { code: 'ECONNREFUSED', details: { port: 5432 } });
    logger.warn({ err, counts: { pending: 3 } }, 'database unavailable');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      err: { code: 'ECONNREFUSED', details: { port: 5432 } },
      counts: { pending: 3 },
    });
  });
});

describe('the Logger type', () => {
  it('comes from common/logger.ts in every product file: one Logger type for the house', () => {
    const listed = execFileSync('git', ['ls-files', '*.ts'], { cwd: PROJECT_DIR, encoding: 'utf8' }).split('\n');
    const product = listed.filter((path) => /^(?!test\/|bench\/|scripts\/)[\w-]+\//.test(path));
    const fromPino = product.filter(
      (path) =>
        path !== 'common/logger.ts' &&
        /import[^;]*\bLogger\b[^;]*from 'pino'/.test(readFileSync(join(PROJECT_DIR, path), 'utf8'))
    );
    expect(product.length).toBeGreaterThan(100);
    expect(fromPino).toEqual([]);
  });
});
