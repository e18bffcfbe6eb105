import { runCli as runWaLake } from './run-cli.js';

/** Runs `wa-lake <args>` against `databaseUrl` as an operator would (test/helpers/run-cli.ts); a failure is returned. */
export async function runCliOnLake(
  databaseUrl: string,
  args: string[],
  extraEnv: Record<string, string> = {}
): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = await runWaLake(args, { env: { DATABASE_URL: databaseUrl, ...extraEnv } });
  return { code: run.code ?? -1, stdout: run.stdout, stderr: run.stderr };
}

/** Creates a key with `wa-lake api-keys create --name <random> …args`. @returns the printed key and its id. */
export async function createKeyWithCli(databaseUrl: string, args: string[]): Promise<{ key: string; id: string }> {
  const result = await runCliOnLake(databaseUrl, ['api-keys', 'create', '--name', `cli-${Date.now()}`, ...args]);
  const key = /x-api-key: (\S+)/.exec(result.stdout)?.[1];
  const id = /created key ([0-9a-f-]{36})/.exec(result.stdout)?.[1];
  if (result.code !== 0 || !key || !id) throw new Error(`api-keys create failed: ${result.stderr}${result.stdout}`);
  return { key, id };
}
