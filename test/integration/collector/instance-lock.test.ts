import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireInstanceLock, InstanceLockedError } from '../../../collector/instance-lock.js';
import { createTempDir } from './collector-test-kit.js';

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

function writeLockOf(pid: number, lockPath: string): void {
  writeFileSync(
    lockPath,
    JSON.stringify({ pid, hostname: hostname(), token: 'other', acquiredAt: new Date().toISOString() })
  );
}

describe('acquireInstanceLock', () => {
  it('refuses a second collector on the same auth dir and outbox until the first releases', () => {
    const options = paths();
    const first = acquireInstanceLock(options);
    cleanups.push(() => first.release());
    expect(() => acquireInstanceLock(options)).toThrow(InstanceLockedError);
    expect(() => acquireInstanceLock({ ...options, authDir: `${options.authDir}-other` })).toThrow(
      /another collector is already running/
    );
    first.release();
    expect(existsSync(`${options.authDir}.lock`)).toBe(false);
    const second = acquireInstanceLock(options);
    second.release();
  });

  it('takes over a lock naming this pid that this process does not hold (a restarted container is pid 1 again)', () => {
    const options = paths();
    writeLockOf(process.pid, `${options.authDir}.lock`);
    writeLockOf(process.pid, `${options.outboxPath}.lock`);
    const lock = acquireInstanceLock(options);
    cleanups.push(() => lock.release());
    expect(() => acquireInstanceLock(options)).toThrow(InstanceLockedError);
  });

  it('refuses while another live process holds the lock, and takes it over once that process is dead', async () => {
    const options = paths();
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    cleanups.push(() => holder.kill('SIGKILL'));
    writeLockOf(holder.pid!, `${options.outboxPath}.lock`);
    const refusal = (() => {
      try {
        acquireInstanceLock(options);
        return null;
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toBeInstanceOf(InstanceLockedError);
    expect((refusal as InstanceLockedError).owner?.pid).toBe(holder.pid);
    // Nothing half-acquired is left behind: the auth-dir lock taken first was released again.
    expect(existsSync(`${options.authDir}.lock`)).toBe(false);

    holder.kill('SIGKILL');
    await once(holder, 'exit');
    const lock = acquireInstanceLock(options);
    cleanups.push(() => lock.release());
    expect(lock.paths).toEqual([`${options.authDir}.lock`, `${options.outboxPath}.lock`].map((path) => join(path)));
  });
});
