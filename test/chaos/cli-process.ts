import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../bin/wa-lake.js', import.meta.url));

/** One `wa-lake <command>` child process of the chaos run, its output appended to a log file. */
export interface CliProcess {
  name: string;
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** SIGKILL: no graceful shutdown, as a crash or an OOM kill would do. Resolves once it is gone. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `node bin/wa-lake.js <args>` as its own process (the chaos test kills processes, so nothing
 * runs inside the test's own process), with exactly `env` plus PATH, appending stdout and stderr to
 * `logFile`.
 */
export function startCli(name: string, args: string[], env: Record<string, string>, logFile: string): CliProcess {
  return startNode(name, [CLI, ...args], env, logFile);
}

/**
 * Starts a TypeScript entry of the chaos test (`node --import tsx <script>`) the same way as {@link startCli}:
 * for a part that only a test may build, such as a collector on the simulated WhatsApp.
 */
export function startTsScript(name: string, script: string, env: Record<string, string>, logFile: string): CliProcess {
  return startNode(name, ['--import', 'tsx', script], env, logFile);
}

function startNode(name: string, args: string[], env: Record<string, string>, logFile: string): CliProcess {
  const log = createWriteStream(logFile, { flags: 'a' });
  log.write(`--- ${new Date().toISOString()} start ${name}: node ${args.join(' ')}\n`);
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(log, { end: false });
  child.stderr.pipe(log, { end: false });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      log.end(`--- ${new Date().toISOString()} exit ${name}: ${code ?? 'signal'}\n`);
      resolve(code);
    });
  });
  const isRunning = (): boolean => child.exitCode === null && child.signalCode === null;
  return {
    name,
    child,
    exited,
    async kill() {
      if (isRunning()) child.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 15_000) {
      if (!isRunning()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
