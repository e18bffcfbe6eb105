import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireInstanceLock, InstanceLockedError } from '../../../collector/instance-lock.js';
import { createTempDir } from '../../helpers/collector-test-kit.js';

const LOCK_MODULE = fileURLToPath(new URL('../../../collector/instance-lock.ts', import.meta.url));

const cleanups: Array<() => void> = [];
afterEach(() =>
  cleanups
    .splice(0)
    .reverse()
    .forEach((cleanup) => cleanup())
);

function paths(): { authDir: string; outboxPath: string } {
  const { dir, cleanup } = createTempDir('lock');
  cleanups.push(cleanup);
  return { authDir: join(dir, 'auth'), outboxPath: join(dir, 'outbox.sqlite') };
}

function refusalOf(options: { authDir?: string; outboxPath: string }): InstanceLockedError {
  try {
    acquireInstanceLock(options).release();
  } catch (err) {
    if (err instanceof InstanceLockedError) return err;
    throw err;
  }
  throw new Error('the lock was taken, a refusal was expected');
}

/** Another process (the real module, under tsx) holding the locks until it is killed. */
async function startHolder(options: { authDir: string; outboxPath: string }): Promise<ChildProcess> {
  const script =
    `const { acquireInstanceLock } = await import(${JSON.stringify(LOCK_MODULE)});` +
    `acquireInstanceLock(${JSON.stringify(options)}); console.log('held'); setInterval(() => {}, 1000);`;
  const holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => holder.kill('SIGKILL'));
  const [line] = (await once(createInterface({ input: holder.stdout }), 'line')) as [string];
  expect(line).toBe('held');
  return holder;
}

describe('acquireInstanceLock', () => {
  it('refuses a second collector on the same auth dir or outbox until the first releases', () => {
    const options = paths();
    const first = acquireInstanceLock(options);
    cleanups.push(() => first.release());
    expect(first.paths).toEqual([join(options.authDir, 'instance.lock'), `${options.outboxPath}.instance.lock`]);
    const refusal = refusalOf(options);
    expect(refusal.owner).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(refusal.message).toMatch(/another collector is already running/);
    expect(() => acquireInstanceLock({ ...options, authDir: `${options.authDir}-other` })).toThrow(InstanceLockedError);
    expect(() => acquireInstanceLock({ outboxPath: `${options.outboxPath}-other`, authDir: options.authDir })).toThrow(
      InstanceLockedError
    );
    first.release();
    first.release();
    acquireInstanceLock(options).release();
  });

  it('refuses while another process holds the lock and is free the moment it is SIGKILLed', async () => {
    const options = paths();
    const holder = await startHolder(options);
    const refusal = refusalOf(options);
    expect(refusal.owner).toMatchObject({ pid: holder.pid, hostname: hostname() });
    expect(refusal.lockPath).toBe(join(options.authDir, 'instance.lock'));
    // A replay (outbox only) is refused too, and a refused collector keeps nothing: the other outbox is free.
    expect(() => acquireInstanceLock({ outboxPath: options.outboxPath })).toThrow(InstanceLockedError);

    holder.kill('SIGKILL');
    await once(holder, 'exit');
    const lock = acquireInstanceLock(options);
    cleanups.push(() => lock.release());
    expect(refusalOf(options).owner?.pid).toBe(process.pid);
  });

  it('takes a lock whose owner row names a process that does not hold it (another container, pid 1)', () => {
    const options = paths();
    acquireInstanceLock(options).release();
    // What a stopped container leaves: an owner row naming its pid 1 and its hostname, and no lock.
    for (const path of [join(options.authDir, 'instance.lock'), `${options.outboxPath}.instance.lock`]) {
      const db = new Database(path);
      db.prepare("UPDATE lock_owner SET pid = 1, hostname = 'old-container-id'").run();
      db.close();
    }
    const lock = acquireInstanceLock(options);
    cleanups.push(() => lock.release());
    expect(refusalOf(options).owner).toMatchObject({ pid: process.pid, hostname: hostname() });
  });

  it('fails with the system error naming the lock file when it cannot be made', () => {
    const options = paths();
    // A folder where the lock file goes: as EACCES or EROFS would, but also for root.
    mkdirSync(join(options.authDir, 'instance.lock'), { recursive: true });
    const failure = (() => {
      try {
        acquireInstanceLock(options).release();
        return null;
      } catch (err) {
        return err as NodeJS.ErrnoException;
      }
    })();
    expect(failure).toMatchObject({ code: 'EISDIR', path: join(options.authDir, 'instance.lock') });
  });

  it('creates the lock files readable by their owner only', () => {
    const options = paths();
    const lock = acquireInstanceLock(options);
    cleanups.push(() => lock.release());
    for (const path of lock.paths) expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('leaves nothing held when the second lock is refused', async () => {
    const options = paths();
    const other = paths();
    // The outbox is held by another process; the auth lock taken first must be let go again.
    await startHolder({ authDir: other.authDir, outboxPath: options.outboxPath });
    expect(() => acquireInstanceLock(options)).toThrow(InstanceLockedError);
    acquireInstanceLock({ authDir: options.authDir, outboxPath: other.outboxPath }).release();
  });
});
