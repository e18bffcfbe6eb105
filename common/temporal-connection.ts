import { accessSync, constants, readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import {
  loadClientConfigProfile,
  toClientOptions,
  type ClientConfigProfile,
  type ConfigDataSource,
} from '@temporalio/envconfig';
import { z } from 'zod';

/** Where wa-lake's processes find Temporal when neither the environment nor a profile says (`wa-lake dev`'s default). */
export const DEFAULT_TEMPORAL_ADDRESS = '127.0.0.1:7233';
const DEFAULT_NAMESPACE = 'default';
const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:]+\]:\d{1,5}$/;

/**
 * The Temporal connection keys of the SDK's environment configuration (`@temporalio/envconfig`, ADR 0022),
 * parsed at the edge. Every key is optional: a profile (`TEMPORAL_PROFILE`, default `default`) of the TOML file
 * `TEMPORAL_CONFIG_FILE` fills what the environment leaves out, and the environment wins over the profile, as in
 * the SDK. Unlike the SDK, a server process never falls back to `~/.config/temporalio/temporal.toml`: what it
 * connects to is said by its own environment, not by whose home directory it runs in.
 */
export const temporalConnectionEnvShape = {
  TEMPORAL_ADDRESS: z.string().regex(HOST_PORT, 'must be host:port, e.g. 127.0.0.1:7233').optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).optional(),
  /** Temporal Cloud API key (sent as a bearer token; turns TLS on unless `TEMPORAL_TLS=false`). */
  TEMPORAL_API_KEY: z.string().min(1).optional(),
  TEMPORAL_TLS: z.enum(['true', 'false'], { error: "must be 'true' or 'false'" }).optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_CERT_DATA: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: z.string().min(1).optional(),
  TEMPORAL_TLS_CLIENT_KEY_DATA: z.string().min(1).optional(),
  TEMPORAL_PROFILE: z.string().min(1).optional(),
  TEMPORAL_CONFIG_FILE: z.string().min(1).optional(),
};

type TemporalConnectionEnv = z.output<z.ZodObject<typeof temporalConnectionEnvShape>>;

/** Options both `Connection` (client) and `NativeConnection` (worker) accept. */
export interface TemporalConnectionOptions {
  readonly address: string;
  readonly tls?: TLSConfig | boolean;
  readonly apiKey?: string;
  readonly metadata?: Record<string, string>;
}

/** How one process reaches Temporal: the resolved address and namespace plus the connection options. */
export interface TemporalConnection {
  readonly address: string;
  readonly namespace: string;
  readonly connectionOptions: TemporalConnectionOptions;
  /** For the start log: which protections are on, never their material. */
  readonly summary: { readonly tls: 'off' | 'tls' | 'mtls'; readonly apiKey: boolean };
}

/** The keys {@link resolveTemporalConnection} consumes, to strip them from a process config. */
type TemporalKeys = keyof typeof temporalConnectionEnvShape;

/** What a process config holds instead of the raw keys: the resolved address and namespace and the connection. */
export interface ResolvedTemporalKeys {
  readonly TEMPORAL_ADDRESS: string;
  readonly TEMPORAL_NAMESPACE: string;
  readonly temporal: TemporalConnection;
}

/**
 * Replaces the raw Temporal keys of a parsed process environment by the resolved connection; for the `.transform`
 * of each process's config schema (collector, worker, ingest API). Every problem becomes an issue on `ctx`,
 * so the process prints it and exits before opening any connection (house style §5).
 */
export function withTemporalConnection<T extends TemporalConnectionEnv>(
  parsed: T,
  ctx: z.RefinementCtx
): Omit<T, TemporalKeys> & ResolvedTemporalKeys {
  const rest: Record<string, unknown> = { ...parsed };
  for (const key of Object.keys(temporalConnectionEnvShape)) delete rest[key];
  const temporal = resolveTemporalConnection(parsed, (key, message) =>
    ctx.addIssue({ code: 'custom', path: [key], message })
  );
  return {
    ...(rest as Omit<T, TemporalKeys>),
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
    temporal,
  };
}

/**
 * Resolves the connection the way `@temporalio/envconfig`'s `loadClientConnectConfig` does (profile, then
 * environment overrides, API key implies TLS), after checking what the SDK would only find at connect time or
 * not at all: an unreadable or non-PEM certificate file (named by key and path), a certificate without its key,
 * a missing `TEMPORAL_CONFIG_FILE`.
 *
 * @param report - called once per problem with the key to blame and a sentence; the result is then unusable.
 * @returns the connection; defaults `127.0.0.1:7233` and namespace `default`.
 */
export function resolveTemporalConnection(
  env: TemporalConnectionEnv,
  report: (key: string, message: string) => void
): TemporalConnection {
  const fallback: TemporalConnection = {
    address: env.TEMPORAL_ADDRESS ?? DEFAULT_TEMPORAL_ADDRESS,
    namespace: env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE,
    connectionOptions: { address: env.TEMPORAL_ADDRESS ?? DEFAULT_TEMPORAL_ADDRESS },
    summary: { tls: 'off', apiKey: false },
  };
  if (env.TEMPORAL_CONFIG_FILE && !isReadable(env.TEMPORAL_CONFIG_FILE)) {
    report('TEMPORAL_CONFIG_FILE', `cannot read ${env.TEMPORAL_CONFIG_FILE}`);
    return fallback;
  }
  let profile: ClientConfigProfile;
  try {
    profile = loadClientConfigProfile({
      ...(env.TEMPORAL_PROFILE ? { profile: env.TEMPORAL_PROFILE } : {}),
      ...(env.TEMPORAL_CONFIG_FILE ? { configSource: { path: env.TEMPORAL_CONFIG_FILE } } : {}),
      overrideEnvVars: definedValues(env),
    });
  } catch (err) {
    const problem = describeProfileError(err, env);
    report(problem.key, problem.message);
    return fallback;
  }
  if (!checkProfile(profile, env, report)) return fallback;
  const { connectionOptions, namespace } = toClientOptions(profile);
  const address = connectionOptions.address ?? DEFAULT_TEMPORAL_ADDRESS;
  if (!HOST_PORT.test(address)) {
    report('TEMPORAL_ADDRESS', `profile address ${address} must be host:port`);
    return fallback;
  }
  const tls = connectionOptions.tls ?? undefined;
  const options: TemporalConnectionOptions = {
    address,
    ...(tls !== undefined ? { tls } : {}),
    ...(connectionOptions.apiKey !== undefined ? { apiKey: connectionOptions.apiKey } : {}),
    ...(profile.grpcMeta ? { metadata: profile.grpcMeta } : {}),
  };
  return {
    address,
    namespace: namespace ?? DEFAULT_NAMESPACE,
    connectionOptions: options,
    summary: {
      tls: tls === undefined || tls === false ? 'off' : typeof tls === 'object' && tls.clientCertPair ? 'mtls' : 'tls',
      apiKey: connectionOptions.apiKey !== undefined,
    },
  };
}

const PEM_LABELS = {
  serverCACert: { label: 'CERTIFICATE', env: 'TEMPORAL_TLS_SERVER_CA_CERT', toml: 'server_ca_cert' },
  clientCert: { label: 'CERTIFICATE', env: 'TEMPORAL_TLS_CLIENT_CERT', toml: 'client_cert' },
  clientKey: { label: 'PRIVATE KEY', env: 'TEMPORAL_TLS_CLIENT_KEY', toml: 'client_key' },
} as const;

/** Checks every certificate source of the profile; @returns false when one is unusable. */
function checkProfile(
  profile: ClientConfigProfile,
  env: TemporalConnectionEnv,
  report: (key: string, message: string) => void
): boolean {
  const tls = profile.tls;
  if (!tls || tls.disabled) return true;
  let isUsable = true;
  for (const field of ['serverCACert', 'clientCert', 'clientKey'] as const) {
    const source = tls[field];
    if (!source) continue;
    const key = sourceKey(field, source, env);
    const problem = checkPem(source, PEM_LABELS[field].label);
    if (problem) {
      report(key, problem);
      isUsable = false;
    }
  }
  if (Boolean(tls.clientCert) !== Boolean(tls.clientKey)) {
    const missing = tls.clientCert ? 'TEMPORAL_TLS_CLIENT_KEY_PATH' : 'TEMPORAL_TLS_CLIENT_CERT_PATH';
    report(missing, 'mTLS needs both the client certificate and its private key');
    isUsable = false;
  }
  return isUsable;
}

/** The key an operator set for `source`: the environment variable, or the profile's TOML key. */
function sourceKey(field: keyof typeof PEM_LABELS, source: ConfigDataSource, env: TemporalConnectionEnv): string {
  const names = PEM_LABELS[field];
  const kind = 'path' in source ? 'PATH' : 'DATA';
  const envKey = `${names.env}_${kind}` as keyof TemporalConnectionEnv;
  if (env[envKey] !== undefined) return envKey;
  return `profile ${env.TEMPORAL_PROFILE ?? 'default'}: tls.${names.toml}_${kind.toLowerCase()}`;
}

/** @returns a sentence saying why `source` is no PEM `label`, or null when it is one. */
function checkPem(source: ConfigDataSource, label: string): string | null {
  let text: string;
  if ('path' in source) {
    try {
      text = readFileSync(source.path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      return `cannot read ${source.path} (${code})`;
    }
  } else {
    text = typeof source.data === 'string' ? source.data : Buffer.from(source.data).toString('utf8');
  }
  if (!new RegExp(`-----BEGIN [A-Z ]*${label}-----`).test(text)) {
    const where = 'path' in source ? source.path : 'the value';
    return `${where} holds no PEM ${label.toLowerCase()} (-----BEGIN … ${label}-----)`;
  }
  // The SDK takes no passphrase: an encrypted key would fail only at the first handshake, with a native error.
  if (label === 'PRIVATE KEY' && /-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(text)) {
    const where = 'path' in source ? source.path : 'the value';
    return `${where} is an encrypted private key, which Temporal's client cannot use: decrypt it (openssl pkey -in <key> -out <plain key>) and keep that file readable by this process's user only`;
  }
  return null;
}

function isReadable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

function definedValues(env: TemporalConnectionEnv): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (typeof value === 'string') values[key] = value;
  return values;
}

/** The SDK's TOML parser (smol-toml) error: its message quotes the offending source lines, so it is never shown. */
interface TomlSyntaxError {
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

function isTomlSyntaxError(err: unknown): err is TomlSyntaxError {
  return (
    err instanceof Error &&
    err.message.startsWith(TOML_ERROR_PREFIX) &&
    typeof (err as Partial<TomlSyntaxError>).line === 'number' &&
    typeof (err as Partial<TomlSyntaxError>).column === 'number'
  );
}

const TOML_ERROR_PREFIX = 'Invalid TOML document: ';
/** The SDK's fixed sentence for a certificate or key given both as a path and as data. */
const PATH_AND_DATA = /^Cannot specify both (client_cert|client_key|server_ca_cert)_path and \1_data$/;
const TOML_TO_ENV = {
  client_cert: 'TEMPORAL_TLS_CLIENT_CERT',
  client_key: 'TEMPORAL_TLS_CLIENT_KEY',
  server_ca_cert: 'TEMPORAL_TLS_SERVER_CA_CERT',
} as const;

/**
 * Turns an error of `loadClientConfigProfile` into a key to blame and a sentence that holds no content of the
 * file: `TEMPORAL_CONFIG_FILE` may be pointed at a `.env` or a key file by mistake, and the parser's own message
 * quotes the offending lines (an API key, a webhook secret, key material) into the fatal log. A syntax error is
 * named by file, line, column and kind; any other error by the SDK's fixed sentences only.
 */
function describeProfileError(err: unknown, env: TemporalConnectionEnv): { key: string; message: string } {
  const file = env.TEMPORAL_CONFIG_FILE ?? 'the Temporal configuration file';
  if (isTomlSyntaxError(err)) {
    const kind = err.message.slice(TOML_ERROR_PREFIX.length).split('\n', 1)[0] ?? 'syntax error';
    return {
      key: 'TEMPORAL_CONFIG_FILE',
      message: `${file}:${err.line}:${err.column}: not valid TOML (${safeKind(kind)}); the file's content is not shown`,
    };
  }
  const message = err instanceof Error ? err.message : '';
  const both = PATH_AND_DATA.exec(message);
  if (both) {
    const field = both[1] as keyof typeof TOML_TO_ENV;
    const names = [`_PATH`, `_DATA`].map((suffix) => {
      const envKey = `${TOML_TO_ENV[field]}${suffix}` as keyof TemporalConnectionEnv;
      const tomlKey = `tls.${field}${suffix.toLowerCase()}`;
      return env[envKey] !== undefined
        ? envKey
        : `${tomlKey} of profile ${env.TEMPORAL_PROFILE ?? 'default'} in ${file}`;
    });
    const [pathName, dataName] = names as [string, string];
    return {
      key: pathName.startsWith('TEMPORAL_')
        ? pathName
        : dataName.startsWith('TEMPORAL_')
          ? dataName
          : 'TEMPORAL_CONFIG_FILE',
      message: `${pathName} and ${dataName} are both set: give the ${field.replaceAll('_', ' ')} as a path or as data, not both`,
    };
  }
  if (/^Profile '[^']*' not found in config data$/.test(message)) return { key: 'TEMPORAL_PROFILE', message };
  if (/^Validation error: [\w .,()-]*$/.test(message))
    return { key: 'TEMPORAL_CONFIG_FILE', message: `${file}: ${message}` };
  if (message === '' || !env.TEMPORAL_CONFIG_FILE) {
    return { key: 'TEMPORAL_CONFIG_FILE', message: `cannot load the Temporal profile (${errorName(err)})` };
  }
  // Valid TOML without `[profile.*]` tables (a quoted `.env`, say) fails inside the SDK with a TypeError.
  return {
    key: 'TEMPORAL_CONFIG_FILE',
    message: `${file} is no Temporal configuration file (no [profile.${env.TEMPORAL_PROFILE ?? 'default'}] table read: ${errorName(err)})`,
  };
}

/** The parser's kinds are fixed sentences; anything else (a date parser's message) is not repeated. */
function safeKind(kind: string): string {
  return /^[a-z][a-z0-9 :,.-]{0,80}$/i.test(kind) ? kind : 'syntax error';
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}
