/** Quotes a value for a POSIX shell: single quotes, an embedded `'` closed, escaped and reopened. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The `export …` lines a user pastes into another terminal so CLI commands (`report`, `members`, `api-keys`,
 * `forget`, `rebuild`, `retention`, `dlq`, `status`…) reach the lake and Temporal of a running `wa-lake dev` and
 * encrypt with its payload key (architecture.md §14). Before, they found `DATABASE_URL` by guessing and
 * `api-keys create` stored webhook secrets in clear because the key generated in the data folder was unknown to
 * them (fresh-user report, 2026-12-01).
 *
 * @param stack.payloadKeyFile - the data folder's generated key file, or null when `PAYLOAD_ENCRYPTION_KEYS` came
 *   from the environment (the user already has it). The key itself is never printed: the line reads the file.
 * @returns shell lines, values single-quoted.
 */
export function cliEnvironmentLines(stack: {
  databaseUrl: string;
  temporalAddress: string;
  payloadKeyFile: string | null;
  /** The stack's webhook policy keys (ADR 0014), so `api-keys create --webhook-url http://127.0.0.1…` works too. */
  webhookPolicyEnv?: Record<string, string>;
}): string[] {
  const lines = [
    `export DATABASE_URL=${shellQuote(stack.databaseUrl)}`,
    `export TEMPORAL_ADDRESS=${shellQuote(stack.temporalAddress)}`,
  ];
  if (stack.payloadKeyFile) lines.push(`export PAYLOAD_ENCRYPTION_KEYS="$(cat ${shellQuote(stack.payloadKeyFile)})"`);
  for (const [key, value] of Object.entries(stack.webhookPolicyEnv ?? {}))
    lines.push(`export ${key}=${shellQuote(value)}`);
  return lines;
}
