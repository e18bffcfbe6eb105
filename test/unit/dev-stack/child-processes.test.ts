import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { killTrackedChildProcesses, trackChildProcess } from '../../../dev-stack/child-processes.js';

describe('killTrackedChildProcesses', () => {
  it('sends each running tracked child its forced-exit signal', async () => {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    trackChildProcess(child, 'SIGKILL');
    const exited = once(child, 'exit');
    killTrackedChildProcesses();
    expect(await exited).toEqual([null, 'SIGKILL']);
  });
});
