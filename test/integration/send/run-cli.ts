import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const CLI = fileURLToPath(new URL('../../../bin/wa-lake.js', import.meta.url));
const run = promisify(execFile);

/** Runs `wa-lake <args>` against `databaseUrl` as an operator would; a non-zero exit is returned, not thrown. */
export async function runCli(
  databaseUrl: string,
  args: string[],
  extraEnv: Record<string, string> = {}
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env['PATH'] ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...extraEnv };
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Creates a key with `wa-lake api-keys create --name <random> …args`. @returns the printed key and its id. */
export async function createKeyWithCli(databaseUrl: string, args: string[]): Promise<{ key: string; id: string }> {
  const result = await runCli(databaseUrl, ['api-keys', 'create', '--name', `cli-${Date.now()}`, ...args]);
  const key = /x-api-key: (\S+)/.exec(result.stdout)?.[1];
  const id = /created key ([0-9a-f-]{36})/.exec(result.stdout)?.[1];
  if (result.code !== 0 || !key || !id) throw new Error(`api-keys create failed: ${result.stderr}${result.stdout}`);
  return { key, id };
}
