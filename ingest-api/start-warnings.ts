import { isLoopbackHost } from '../common/loopback-host.js';
import type { IngestConfig } from './config.js';

/** One warning the ingest API logs at start: the key to set and the sentence. */
export interface StartWarning {
  readonly key: 'PAYLOAD_ENCRYPTION_KEYS' | 'METRICS_TOKEN';
  readonly message: string;
}

/**
 * What the ingest API's configuration leaves open, said once at start (docs/configuration.md, ADR 0028): send
 * starts carrying recipient and text in clear to Temporal when `PAYLOAD_ENCRYPTION_KEYS` is unset, and
 * `/metrics` open on an address other machines reach.
 */
export function ingestStartWarnings(
  config: Pick<IngestConfig, 'host' | 'metricsToken'> & { send: Pick<IngestConfig['send'], 'payloadEncryptionKeys'> }
): StartWarning[] {
  const warnings: StartWarning[] = [];
  const keys = config.send.payloadEncryptionKeys;
  if (!keys || keys.length === 0) {
    warnings.push({
      key: 'PAYLOAD_ENCRYPTION_KEYS',
      message:
        'PAYLOAD_ENCRYPTION_KEYS is not set: sendMessage workflows carry recipients and texts in clear in Temporal histories (see docs/runbook.md, Privacy)',
    });
  }
  if (config.metricsToken === null && !isLoopbackHost(config.host)) {
    warnings.push({
      key: 'METRICS_TOKEN',
      message: `the ingest API listens on ${config.host}, which other machines reach, with GET /metrics open: set METRICS_TOKEN (ADR 0014)`,
    });
  }
  return warnings;
}
