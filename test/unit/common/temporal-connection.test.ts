import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCollectorConfig } from '../../../collector/config.js';
import { ConfigError } from '../../../common/config-schema.js';
import { loadIngestConfig } from '../../../ingest-api/config.js';
import { loadWorkerConfig } from '../../../worker/config.js';
import { createTestCertificates } from '../../helpers/test-certificates.js';

// ADR 0022: every process reads the Temporal connection the way @temporalio/envconfig does, and a
// certificate that cannot be used stops the process at start with the key and the path, not at connect time.
const certificates = createTestCertificates();
afterAll(() => certificates.remove());

const WORKER_REQUIRED = { WEBHOOK_URL: 'http://127.0.0.1:8080/x', WHATSAPP_WEBHOOK_SECRET: 'a'.repeat(32) };

function configIssues(load: () => unknown): string[] {
  try {
    load();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
}

describe('Temporal connection configuration', () => {
  it('connects in plaintext to 127.0.0.1:7233, namespace default, when nothing is set', () => {
    const config = loadWorkerConfig(WORKER_REQUIRED);
    expect(config.TEMPORAL_ADDRESS).toBe('127.0.0.1:7233');
    expect(config.TEMPORAL_NAMESPACE).toBe('default');
    expect(config.temporal.connectionOptions).toEqual({ address: '127.0.0.1:7233' });
    expect(config.temporal.summary).toEqual({ tls: 'off', apiKey: false });
  });

  it('reads mTLS with a custom CA and server name from TEMPORAL_TLS_* into every process', () => {
    const env = {
      ...WORKER_REQUIRED,
      DATABASE_URL: 'postgres://x',
      TEMPORAL_ADDRESS: 'temporal.example:7233',
      TEMPORAL_NAMESPACE: 'wa-lake-prod',
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certificates.caCertPath,
      TEMPORAL_TLS_SERVER_NAME: certificates.serverName,
      TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.clientCertPath,
      TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.clientKeyPath,
    };
    for (const temporal of [
      loadWorkerConfig(env).temporal,
      loadCollectorConfig(env).temporal,
      loadIngestConfig(env).send.temporal,
    ]) {
      expect(temporal.namespace).toBe('wa-lake-prod');
      expect(temporal.summary).toEqual({ tls: 'mtls', apiKey: false });
      expect(temporal.connectionOptions.tls).toEqual({
        serverNameOverride: certificates.serverName,
        serverRootCACertificate: Uint8Array.from(certificates.read(certificates.caCertPath)),
        clientCertPair: {
          crt: Uint8Array.from(certificates.read(certificates.clientCertPath)),
          key: Uint8Array.from(certificates.read(certificates.clientKeyPath)),
        },
      });
    }
  });

  it('turns TLS on for an API key (Temporal Cloud) unless TEMPORAL_TLS=false', () => {
    const cloud = loadWorkerConfig({ ...WORKER_REQUIRED, TEMPORAL_API_KEY: 'cloud-key-123' }).temporal;
    expect(cloud.connectionOptions).toEqual({ address: '127.0.0.1:7233', apiKey: 'cloud-key-123', tls: true });
    expect(cloud.summary).toEqual({ tls: 'tls', apiKey: true });
    const plain = loadWorkerConfig({ ...WORKER_REQUIRED, TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }).temporal;
    expect(plain.connectionOptions.tls).toBe(false);
  });

  it('takes a profile of TEMPORAL_CONFIG_FILE, and the environment wins over it', () => {
    const file = join(certificates.dir, 'temporal.toml');
    writeFileSync(
      file,
      [
        '[profile.prod]',
        'address = "prod.tmprl.cloud:7233"',
        'namespace = "wa-lake.abc12"',
        'api_key = "from-profile"',
      ].join('\n')
    );
    const config = loadWorkerConfig({
      ...WORKER_REQUIRED,
      TEMPORAL_CONFIG_FILE: file,
      TEMPORAL_PROFILE: 'prod',
      TEMPORAL_NAMESPACE: 'from-env',
    });
    expect(config.TEMPORAL_ADDRESS).toBe('prod.tmprl.cloud:7233');
    expect(config.TEMPORAL_NAMESPACE).toBe('from-env');
    expect(config.temporal.connectionOptions.apiKey).toBe('from-profile');
    expect(
      configIssues(() => loadWorkerConfig({ ...WORKER_REQUIRED, TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'x' }))
    ).toEqual(["TEMPORAL_PROFILE: Profile 'x' not found in config data"]);
  });

  it('fails at start naming the key and the path of a certificate that cannot be read', () => {
    const missing = join(certificates.dir, 'no-such-client.crt');
    const issues = configIssues(() =>
      loadWorkerConfig({
        ...WORKER_REQUIRED,
        TEMPORAL_TLS_CLIENT_CERT_PATH: missing,
        TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.clientKeyPath,
      })
    );
    expect(issues).toEqual([`TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read ${missing} (ENOENT)`]);
  });

  it('refuses a key file given as the certificate, half a client pair, and a missing config file', () => {
    expect(
      configIssues(() =>
        loadWorkerConfig({
          ...WORKER_REQUIRED,
          TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.clientKeyPath,
          TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.clientKeyPath,
        })
      )
    ).toEqual([
      `TEMPORAL_TLS_CLIENT_CERT_PATH: ${certificates.clientKeyPath} holds no PEM certificate (-----BEGIN … CERTIFICATE-----)`,
    ]);
    expect(
      configIssues(() =>
        loadWorkerConfig({ ...WORKER_REQUIRED, TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.clientCertPath })
      )
    ).toEqual(['TEMPORAL_TLS_CLIENT_KEY_PATH: mTLS needs both the client certificate and its private key']);
    expect(
      configIssues(() => loadWorkerConfig({ ...WORKER_REQUIRED, TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' }))
    ).toEqual(['TEMPORAL_CONFIG_FILE: cannot read /nonexistent/temporal.toml']);
  });
  describe('a TEMPORAL_CONFIG_FILE that is no TOML profile is named by file, line, column and kind, never its content', () => {
    function loadError(content: string, name: string): ConfigError {
      const file = join(certificates.dir, name);
      writeFileSync(file, content, { mode: 0o600 });
      try {
        loadWorkerConfig({ ...WORKER_REQUIRED, TEMPORAL_CONFIG_FILE: file });
      } catch (err) {
        if (err instanceof ConfigError) return err;
        throw err;
      }
      throw new Error('loaded');
    }

    it('a profile with a syntax error after its API key', () => {
      const apiKey = 'eyJhbGciOiJFUzI1NiJ9.secret-api-key-material';
      const err = loadError(`[profile.default]\naddress = "x.tmprl.cloud:7233"\napi_key = "${apiKey}\n`, 'broken.toml');
      expect(err.issues).toEqual([
        `TEMPORAL_CONFIG_FILE: ${join(certificates.dir, 'broken.toml')}:3:${apiKey.length + 12}: not valid TOML (control characters are not allowed in strings); the file's content is not shown`,
      ]);
      expect(err.message).not.toContain('eyJ');
      expect(JSON.stringify(err)).not.toContain('eyJ');
    });

    it('a .env file', () => {
      const secret = 'super-secret-webhook-value-123456';
      const key = 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=';
      const err = loadError(`WHATSAPP_WEBHOOK_SECRET=${secret}\nPAYLOAD_ENCRYPTION_KEYS=${key}\n`, 'wrong.env');
      expect(err.issues).toEqual([
        `TEMPORAL_CONFIG_FILE: ${join(certificates.dir, 'wrong.env')}:1:25: not valid TOML (invalid value); the file's content is not shown`,
      ]);
      for (const material of [secret, key, 'WHATSAPP_WEBHOOK_SECRET=', 'PAYLOAD_ENCRYPTION_KEYS=']) {
        expect(err.message).not.toContain(material);
      }
    });

    it('a private key file', () => {
      const err = loadError(certificates.read(certificates.clientKeyPath).toString('utf8'), 'client-copy.key');
      expect(err.issues).toEqual([
        `TEMPORAL_CONFIG_FILE: ${join(certificates.dir, 'client-copy.key')}:1:12: not valid TOML (illegal character in key); the file's content is not shown`,
      ]);
      const body = certificates.read(certificates.clientKeyPath).toString('utf8').split('\n')[1] ?? '';
      expect(body.length).toBeGreaterThan(16);
      expect(err.message).not.toContain(body.slice(0, 16));
      expect(err.message).not.toContain('BEGIN');
    });

    it('valid TOML without a profile (a quoted .env) says so without its values', () => {
      const err = loadError('WHATSAPP_WEBHOOK_SECRET="quoted-secret-value-123456"\n', 'quoted.env');
      expect(err.issues).toEqual([
        `TEMPORAL_CONFIG_FILE: ${join(certificates.dir, 'quoted.env')} is no Temporal configuration file (no [profile.default] table read: TypeError)`,
      ]);
    });
  });

  it('names both keys when a certificate is given as a path and as data', () => {
    const pem = certificates.read(certificates.clientCertPath).toString('utf8');
    const issues = configIssues(() =>
      loadWorkerConfig({
        ...WORKER_REQUIRED,
        TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.clientCertPath,
        TEMPORAL_TLS_CLIENT_CERT_DATA: pem,
        TEMPORAL_TLS_CLIENT_KEY_PATH: certificates.clientKeyPath,
      })
    );
    expect(issues).toEqual([
      'TEMPORAL_TLS_CLIENT_CERT_PATH: TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_CERT_DATA are both set: give the client cert as a path or as data, not both',
    ]);
  });

  it('refuses an encrypted PKCS#8 client key at start, in words', () => {
    const encrypted = join(certificates.dir, 'client-encrypted.key');
    execFileSync(
      'openssl',
      ['pkcs8', '-topk8', '-in', certificates.clientKeyPath, '-out', encrypted, '-passout', 'pass:pw-123456'],
      {
        stdio: 'ignore',
      }
    );
    const issues = configIssues(() =>
      loadWorkerConfig({
        ...WORKER_REQUIRED,
        TEMPORAL_TLS_CLIENT_CERT_PATH: certificates.clientCertPath,
        TEMPORAL_TLS_CLIENT_KEY_PATH: encrypted,
      })
    );
    expect(issues).toEqual([
      `TEMPORAL_TLS_CLIENT_KEY_PATH: ${encrypted} is an encrypted private key, which Temporal's client cannot use: decrypt it (openssl pkey -in <key> -out <plain key>) and keep that file readable by this process's user only`,
    ]);
  });
});
