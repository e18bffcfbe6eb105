import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as NodeFs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assertPortsFree } from '../../../../cli/local-stack/preflight.js';
import { describePortClash } from '../../../../cli/commands/dev.js';
import { PortInUseError } from '../../../../dev-stack/tcp-ports.js';

const fsFailure = vi.hoisted(() => ({ code: null as string | null }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof NodeFs>();
  return {
    ...actual,
    accessSync: (...args: Parameters<typeof actual.accessSync>) => {
      if (fsFailure.code) {
        throw Object.assign(new Error(`${fsFailure.code}: refused, access '${String(args[0])}'`), {
          code: fsFailure.code,
        });
      }
      actual.accessSync(...args);
    },
  };
});
// The unit project shares modules between files (isolate: false): evaluate data-dir.ts and its error classes again,
// under the mock.
vi.resetModules();
const { prepareDataDir } = await import('../../../../cli/local-stack/data-dir.js');
const { DataDirUnusableError } = await import('../../../../cli/local-stack/errors.js');

function listen(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0 });
    });
  });
}

describe('wa-lake dev preflight (ADR 0017)', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    fsFailure.code = null;
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  it('refuses two parts on one port, the codec server’s included', () => {
    const ports = { temporalPort: 7233, uiPort: 8233, ingestPort: 8080, postgresPort: 54329, codecPort: 8234 };
    expect(describePortClash(ports, true)).toBeNull();
    expect(describePortClash({ ...ports, uiPort: 7233 }, true)).toBe(
      '--temporal-port and --ui-port are both 7233; each part of the stack needs its own port'
    );
    expect(describePortClash({ ...ports, codecPort: 8233 }, true)).toContain(
      '--ui-port and --codec-port are both 8233'
    );
    // Without embedded PostgreSQL its port is never used, so it cannot clash.
    expect(describePortClash({ ...ports, postgresPort: 8080 }, false)).toBeNull();
  });

  it('names the first taken port with its option, whatever its place in the list', async () => {
    const { server, port } = await listen();
    cleanups.push(() => server.close());
    const free = await listen();
    await new Promise((resolve) => free.server.close(resolve));
    const check = assertPortsFree([
      { port: free.port, purpose: 'the Temporal frontend (--temporal-port)' },
      { port: null, purpose: 'the Temporal Web UI (--ui-port)' },
      { port, purpose: 'embedded PostgreSQL (--postgres-port)' },
    ]);
    await expect(check).rejects.toBeInstanceOf(PortInUseError);
    await expect(check).rejects.toThrow(`port ${port} for embedded PostgreSQL (--postgres-port) is already in use`);
    await expect(
      assertPortsFree([
        { port: free.port, purpose: 'x' },
        { port: undefined, purpose: 'y' },
      ])
    ).resolves.toBeUndefined();
  });

  it.each([
    ['EROFS', 'it is on a read-only file system'],
    ['EACCES', 'you have no permission to write there'],
  ])('says in words that an existing data folder refusing writes (%s) cannot be used', (code, reason) => {
    const dir = mkdtempSync(join(tmpdir(), 'wa-lake-readonly-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    fsFailure.code = code;
    expect(() => prepareDataDir(dir)).toThrow(DataDirUnusableError);
    expect(() => prepareDataDir(dir)).toThrow(
      `cannot use ${dir} as the data folder (--data-dir): ${reason}; pass a folder you can write to`
    );
  });
});
