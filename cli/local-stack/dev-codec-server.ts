import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Logger } from '../../common/logger.js';
import { loadCodecServerConfig } from '../../codec-server/config.js';
import { type RunningCodecServer, startCodecServer } from '../../codec-server/server.js';
import { type DataDirLayout, loadOrCreatePayloadEncryptionKeys } from './data-dir.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The dev stack's codec server and the endpoint given to the Web UI (`--ui-codec-endpoint`). */
export interface DevCodecServer {
  server: RunningCodecServer;
  /**
   * `http://127.0.0.1:<port>`, no token, so the token is on no command line and in no unauthenticated UI settings
   * (ADR 0022). The server still needs the token from every caller, the Web UI too (ADR 0028): the operator enters
   * `<url>/<token>` in the Web UI's Codec Server setting, which the browser keeps.
   */
  uiEndpoint: string;
}

/** Returns the dev stack's codec token: generated once (32 random bytes, hex), kept in `file` (mode 0600). */
function loadOrCreateCodecToken(file: string): string {
  if (existsSync(file)) {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 16) return existing;
  }
  const token = randomBytes(32).toString('hex');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}

/**
 * Starts `wa-lake codec-server` for `wa-lake dev` (architecture.md §14, ADR 0010): the data folder's
 * payload keys (or `PAYLOAD_ENCRYPTION_KEYS` from `env`), a generated token, CORS for the Web UI on
 * `uiPort`, on `codecPort` (`--codec-port`; 0 = a free one) unless `CODEC_SERVER_PORT` is set. Returns null when
 * the UI is headless.
 * @throws ConfigError on an invalid `CODEC_SERVER_*`/`PAYLOAD_ENCRYPTION_KEYS`; the listen error.
 */
export async function startDevCodecServer(
  layout: DataDirLayout,
  env: Env,
  ports: { uiPort: number | null; codecPort: number },
  logger: Logger
): Promise<DevCodecServer | null> {
  const { uiPort, codecPort } = ports;
  if (uiPort === null) return null;
  const config = loadCodecServerConfig({
    CODEC_SERVER_PORT: String(codecPort),
    CODEC_SERVER_TOKEN: loadOrCreateCodecToken(layout.codecTokenFile),
    CODEC_SERVER_CORS_ORIGINS: `http://127.0.0.1:${uiPort},http://localhost:${uiPort}`,
    PAYLOAD_ENCRYPTION_KEYS: loadOrCreatePayloadEncryptionKeys(layout.payloadKeyFile),
    ...env,
  });
  const server = await startCodecServer({ config, logger });
  return { server, uiEndpoint: server.url };
}
