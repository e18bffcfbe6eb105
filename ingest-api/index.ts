/**
 * The ingest API's public entry point: what the CLI may use to configure and serve the HTTP process
 * (cli/README.md). The CLI reaches the database through `lake/index.ts`, never through this folder.
 */
export { loadIngestConfig, type IngestConfig } from './config.js';
export { startIngestServer, type RunningIngestServer } from './server.js';
