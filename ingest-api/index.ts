import type { Logger } from '../common/logger.js';
import type { IngestConfig } from './config.js';
import type { RunningIngestServer } from './server.js';

/**
 * The ingest API's public entry point: what the CLI may use to configure and serve the HTTP process
 * (cli/README.md). The CLI reaches the database through `lake/index.ts`, never through this folder.
 */
export { loadIngestConfig, type IngestConfig } from './config.js';
export type { RunningIngestServer } from './server.js';

/** `startIngestServer` (./server.js), imported when called: Fastify and the routes load only for a server. */
export async function startIngestServer(options: {
  config: IngestConfig;
  logger: Logger;
}): Promise<RunningIngestServer> {
  return (await import('./server.js')).startIngestServer(options);
}
