import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { dataDirLayout } from '../../../cli/local-stack/data-dir.js';
import { startLocalStack } from '../../../cli/local-stack/start-local-stack.js';
import { acquireInstanceLock } from '../../../collector/instance-lock.js';
import { startEmbeddedPostgres } from '../../../dev-stack/embedded-postgres.js';
import { resolveTemporalCliPath } from '../../../dev-stack/temporal-binaries.js';
import { startTemporalDevServer } from '../../../dev-stack/temporal-dev-server.js';
import { waitUntil } from '../../helpers/wait-until.js';

interface LogLine {
  level: number;
  msg: string;
  serverPid?: number;
}

function capturingLogger(lines: LogLine[]) {
  return pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
}

function isPortOpen(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.once('connect', () => resolve(socket.destroy() !== undefined));
    socket.once('error', () => resolve(false));
  });
}

describe('startLocalStack', () => {
  const dirs: string[] = [];
  const newDataDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-stack-'));
    chmodSync(dir, 0o755); // PostgreSQL runs as the `postgres` user
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a data folder used by another wa-lake dev, naming it and its pid', async () => {
    const dataDir = newDataDir();
    const other = acquireInstanceLock({ outboxPath: join(dataDir, 'wa-lake-dev') });
    try {
      const refused = startLocalStack({
        dataDir,
        env: {},
        logger: pino({ level: 'silent' }),
        source: { kind: 'none' },
      });
      await expect(refused).rejects.toThrow(
        `another wa-lake dev or demo (pid ${process.pid}) is already using the data folder`
      );
      await expect(refused).rejects.not.toThrow(/collector|WhatsApp/);
    } finally {
      other.release();
    }
  });

  it('names --ingest-port when the ingest port is taken', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      const refused = startLocalStack({
        dataDir: newDataDir(),
        env: {},
        logger: pino({ level: 'silent' }),
        source: { kind: 'none' },
        uiPort: null,
        ingestPort: port,
      });
      await expect(refused).rejects.toThrow(`port ${port} for the ingest API (--ingest-port) is already in use`);
    } finally {
      taken.close();
    }
  });

  it('stops PostgreSQL left by a killed run, logs the death of its own, and still stops everything', async () => {
    const dataDir = newDataDir();
    // A server nobody will stop: what a kill -9 of the previous wa-lake dev leaves behind.
    const leftover = await startEmbeddedPostgres({ dataDir: join(dataDir, 'postgres'), database: 'wa_lake' });
    const lines: LogLine[] = [];
    const stack = await startLocalStack({
      dataDir,
      env: {},
      logger: capturingLogger(lines),
      source: { kind: 'none' },
      uiPort: null,
    });
    const messages = (): string[] => lines.map((line) => line.msg);
    expect(messages()).toContain(
      'stopping PostgreSQL left running by an earlier wa-lake dev or demo that did not shut down'
    );
    await expect(leftover.unexpectedExit).resolves.toBeDefined();

    const pid = Number.parseInt(
      readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0] ?? '',
      10
    );
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => messages().some((msg) => msg.startsWith('embedded postgresql exited unexpectedly')));
    expect(lines.find((line) => line.msg.startsWith('embedded postgresql exited'))?.level).toBe(50);

    const stoppingAt = Date.now();
    await stack.stop();
    expect(Date.now() - stoppingAt).toBeLessThan(30_000);
    expect(await isPortOpen(stack.temporalAddress)).toBe(false);
  });

  it('stops the Temporal dev server a killed run left on its folder, then takes its port (ADR 0017)', async () => {
    const dataDir = newDataDir();
    const layout = dataDirLayout(dataDir);
    // What a kill -9 of the previous wa-lake dev leaves: its server, on the folder's state file and a fixed port.
    const leftover = await startTemporalDevServer({
      cliPath: resolveTemporalCliPath(process.env),
      dbFile: layout.temporalDbFile,
      pidFile: layout.temporalPidFile,
      uiPort: null,
    });
    const port = Number(leftover.address.split(':')[1]);
    const lines: LogLine[] = [];
    const stack = await startLocalStack({
      dataDir,
      env: {},
      logger: capturingLogger(lines),
      source: { kind: 'none' },
      uiPort: null,
      temporalPort: port,
    });
    try {
      expect(lines.map((line) => line.msg)).toContain(
        'stopping the Temporal dev server left running by an earlier wa-lake dev or demo that did not shut down'
      );
      await expect(leftover.unexpectedExit).resolves.toBeDefined();
      expect(stack.temporalAddress).toBe(leftover.address);
      expect(Number(readFileSync(layout.temporalPidFile, 'utf8'))).not.toBe(leftover.pid);
    } finally {
      await stack.stop();
    }
  });

  it('logs the death of its Temporal dev server as an error, like PostgreSQL, and still stops', async () => {
    const lines: LogLine[] = [];
    const stack = await startLocalStack({
      dataDir: newDataDir(),
      env: {},
      logger: capturingLogger(lines),
      source: { kind: 'none' },
      uiPort: null,
    });
    const pid = lines.find((line) => line.msg === 'temporal dev server ready')?.serverPid;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid ?? -1, 'SIGKILL');
    const isDeathLogged = (line: LogLine): boolean => line.msg.startsWith('temporal dev server exited unexpectedly');
    await waitUntil(() => lines.some(isDeathLogged));
    expect(lines.find(isDeathLogged)?.level).toBe(50);
    await stack.stop();
    expect(lines.filter(isDeathLogged)).toHaveLength(1);
  });
});
