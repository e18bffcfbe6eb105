/** Quotes a value for a POSIX shell: single quotes, an embedded `'` closed, escaped and reopened. */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** Quotes a value for inside a POSIX shell's double quotes: `\`, `"`, `$` and backquote escaped. */
function doubleQuoted(value: string): string {
  return value.replace(/[\\"$`]/g, (char) => `\\${char}`);
}

/** What of a running stack the other commands need (`LocalStack` has it all). */
export interface StackEnvironment {
  databaseUrl: string;
  /**
   * The embedded PostgreSQL's password file and libpq password file (ADR 0028); null or absent when `DATABASE_URL`
   * came from the environment.
   */
  postgresFiles?: { passwordFile: string; pgpassFile: string } | null;
  temporalAddress: string;
  payloadKeyFile: string | null;
  /** The data folder's generated `ERASURE_KEY` file (ADR 0027); null or absent when the environment set the key. */
  erasureKeyFile?: string | null;
  outboxPath: string;
  collectorStatusPath: string;
  ingestUrl: string;
  /** The codec server's base URL and the file holding its token; null when headless. */
  codec: { url: string; tokenFile: string | null } | null;
  /** The stack's webhook policy keys (ADR 0014), so `api-keys create --webhook-url http://127.0.0.1…` works too. */
  webhookPolicyEnv?: Record<string, string>;
}

/**
 * The `export …` lines a user pastes into another terminal so CLI commands (`report`, `members`, `api-keys`,
 * `forget`, `rebuild`, `retention`, `dlq`, `status`, `send`…) reach the lake, Temporal, the outbox and the send API
 * of a running `wa-lake dev` and encrypt with its payload key (architecture.md §14). `OUTBOX_PATH` and the status
 * file are among them so that `forget` reaches the outbox and `status` finds the collector (ADR 0017);
 * `SEND_API_URL` is the base URL `wa-lake send` posts to; `TEMPORAL_CODEC_ENDPOINT` and
 * `TEMPORAL_CODEC_AUTH` are the codec server and its bearer token, which the `temporal` CLI reads from the
 * environment, so the token stands on no command line (ADR 0022). Secrets are never printed: their lines read the
 * files. The embedded PostgreSQL's password is no exception: `DATABASE_URL` reads it from its file, and `PGPASSFILE`
 * with `PGHOST`, `PGPORT`, `PGUSER` and `PGDATABASE` let a bare `psql` connect without it on its command line.
 *
 * @param stack.payloadKeyFile - the data folder's generated key file, or null when `PAYLOAD_ENCRYPTION_KEYS` came
 *   from the environment (the user already has it).
 * @param stack.codec.tokenFile - null when `CODEC_SERVER_TOKEN` came from the environment (the line reads it).
 * @returns shell lines, values single-quoted.
 */
export function cliEnvironmentLines(stack: StackEnvironment): string[] {
  const lines = [
    ...databaseLines(stack),
    `export TEMPORAL_ADDRESS=${shellQuote(stack.temporalAddress)}`,
    `export OUTBOX_PATH=${shellQuote(stack.outboxPath)}`,
    `export COLLECTOR_STATUS_PATH=${shellQuote(stack.collectorStatusPath)}`,
    `export SEND_API_URL=${shellQuote(stack.ingestUrl)}`,
  ];
  if (stack.payloadKeyFile) lines.push(`export PAYLOAD_ENCRYPTION_KEYS="$(cat ${shellQuote(stack.payloadKeyFile)})"`);
  if (stack.erasureKeyFile) lines.push(`export ERASURE_KEY="$(cat ${shellQuote(stack.erasureKeyFile)})"`);
  if (stack.codec) {
    const token = stack.codec.tokenFile ? `$(cat ${shellQuote(stack.codec.tokenFile)})` : '${CODEC_SERVER_TOKEN}';
    lines.push(
      `export TEMPORAL_CODEC_ENDPOINT=${shellQuote(stack.codec.url)}`,
      `export TEMPORAL_CODEC_AUTH="Bearer ${token}"`
    );
  }
  for (const [key, value] of Object.entries(stack.webhookPolicyEnv ?? {}))
    lines.push(`export ${key}=${shellQuote(value)}`);
  return lines;
}

/**
 * The lines of the lake's connection: with the stack's own PostgreSQL, `DATABASE_URL` with the password read from
 * its file, and the libpq variables `psql` reads (ADR 0028); with a `DATABASE_URL` the user gave, that URL.
 */
function databaseLines(stack: StackEnvironment): string[] {
  const url = new URL(stack.databaseUrl);
  if (stack.postgresFiles && url.password !== '') {
    // The password is hex (generated, ADR 0028), so it needs no percent-encoding in the URL.
    const [before, after] = stack.databaseUrl.split(`:${url.password}@`);
    const password = `$(cat ${shellQuote(stack.postgresFiles.passwordFile)})`;
    return [
      `export DATABASE_URL="${doubleQuoted(before ?? '')}:${password}@${doubleQuoted(after ?? '')}"`,
      `export PGPASSFILE=${shellQuote(stack.postgresFiles.pgpassFile)}`,
      `export PGHOST=${shellQuote(url.hostname)} PGPORT=${shellQuote(url.port || '5432')}`,
      `export PGUSER=${shellQuote(decodeURIComponent(url.username))} PGDATABASE=${shellQuote(
        decodeURIComponent(url.pathname.slice(1))
      )}`,
    ];
  }
  return [`export DATABASE_URL=${shellQuote(stack.databaseUrl)}`];
}
