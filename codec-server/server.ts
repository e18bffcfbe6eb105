import { EncryptionCodec } from '../common/encryption-codec.js';
import type { Logger } from '../common/logger.js';
import { explainListenError } from '../common/listen-error.js';
import { buildCodecServerApp } from './app.js';
import type { CodecServerConfig } from './config.js';

/** A listening codec server. */
export interface RunningCodecServer {
  /** Base URL, e.g. `http://127.0.0.1:8234` (the real port when the config says 0). */
  url: string;
  /** Stops accepting and waits for in-flight requests. */
  close(): Promise<void>;
}

/**
 * Starts `wa-lake codec-server` on `CODEC_SERVER_HOST:CODEC_SERVER_PORT` (architecture.md §14).
 * @throws the listen error (port in use, bad host).
 */
export async function startCodecServer(options: {
  config: CodecServerConfig;
  logger: Logger;
}): Promise<RunningCodecServer> {
  const { config, logger } = options;
  const app = buildCodecServerApp({
    // It shows, never acts: a payload written without a key (a forgery) is shown in clear to the operator.
    codec: new EncryptionCodec(config.PAYLOAD_ENCRYPTION_KEYS ?? [], { isClearAllowed: true }),
    token: config.CODEC_SERVER_TOKEN,
    corsOrigins: config.CODEC_SERVER_CORS_ORIGINS,
    logger,
  });
  try {
    await app.listen({ host: config.CODEC_SERVER_HOST, port: config.CODEC_SERVER_PORT });
  } catch (err) {
    await app.close().catch(() => undefined);
    throw explainListenError(
      err,
      'codec server',
      config.CODEC_SERVER_HOST,
      config.CODEC_SERVER_PORT,
      'CODEC_SERVER_HOST/CODEC_SERVER_PORT'
    );
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.CODEC_SERVER_PORT;
  const host = config.CODEC_SERVER_HOST.includes(':') ? `[${config.CODEC_SERVER_HOST}]` : config.CODEC_SERVER_HOST;
  logger.info({ component: 'codec-server', host: config.CODEC_SERVER_HOST, port }, 'codec server listening');
  return { url: `http://${host}:${port}`, close: () => app.close() };
}
