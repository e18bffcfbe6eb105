import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** PEM files of a throwaway CA, a server certificate it signed and a client certificate it signed. */
export interface TestCertificates {
  dir: string;
  caCertPath: string;
  serverCertPath: string;
  serverKeyPath: string;
  clientCertPath: string;
  clientKeyPath: string;
  /** The DNS name in the server certificate (`TEMPORAL_TLS_SERVER_NAME`). */
  serverName: string;
  read(path: string): Buffer;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: 'ignore' });
}

/** Issues a certificate for `name` signed by the CA in `dir` (EC P-256, 1 day). */
function issue(dir: string, name: string, extensions: string): void {
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key.sec1`], dir);
  // PKCS#8, the form rustls (core SDK) and Node both read.
  openssl(['pkcs8', '-topk8', '-nocrypt', '-in', `${name}.key.sec1`, '-out', `${name}.key`], dir);
  openssl(['req', '-new', '-key', `${name}.key`, '-subj', `/CN=${name}`, '-out', `${name}.csr`], dir);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(
    ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1'].concat(
      ['-sha256', '-extfile', `${name}.ext`, '-out', `${name}.crt`]
    ),
    dir
  );
}

/**
 * Generates the certificates of an mTLS test with the system `openssl` (ADR 0022): a CA, a server
 * certificate for `serverName` (SAN) and a client certificate, in a fresh temporary folder.
 */
export function createTestCertificates(serverName = 'temporal.wa-lake.test'): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'wa-lake-certs-'));
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key.sec1'], dir);
  openssl(['pkcs8', '-topk8', '-nocrypt', '-in', 'ca.key.sec1', '-out', 'ca.key'], dir);
  openssl(
    ['req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=wa-lake test CA', '-days', '1', '-sha256'].concat([
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'ca.crt',
    ]),
    dir
  );
  issue(
    dir,
    'server',
    `basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:${serverName}\n`
  );
  issue(dir, 'client', 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n');
  return testCertificatesIn(dir, serverName, () => rmSync(dir, { recursive: true, force: true }));
}

/**
 * The certificates {@link createTestCertificates} wrote to `dir`, for another process that is handed the folder;
 * `remove` is what removing them means there (default nothing: the folder's creator removes it).
 */
export function testCertificatesIn(
  dir: string,
  serverName: string,
  remove: () => void = () => undefined
): TestCertificates {
  return {
    dir,
    caCertPath: join(dir, 'ca.crt'),
    serverCertPath: join(dir, 'server.crt'),
    serverKeyPath: join(dir, 'server.key'),
    clientCertPath: join(dir, 'client.crt'),
    clientKeyPath: join(dir, 'client.key'),
    serverName,
    read: (path) => readFileSync(path),
    remove,
  };
}

/** The TLS options of a server that presents the test server certificate and trusts only the test CA. */
export function serverTlsOptions(certificates: TestCertificates): { key: Buffer; cert: Buffer; ca: Buffer } {
  return {
    key: certificates.read(certificates.serverKeyPath),
    cert: certificates.read(certificates.serverCertPath),
    ca: certificates.read(certificates.caCertPath),
  };
}
