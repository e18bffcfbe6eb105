import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls, type ConnectionOptions, type TLSSocket } from 'node:tls';
import type { TemporalConnection } from './temporal-connection.js';

/** HTTP/2 client preface and an empty SETTINGS frame: a gRPC server answers them with its own SETTINGS. */
const H2_PREFACE = Buffer.concat([
  Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
  Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]),
]);

/** Certificate checks of the server's chain that fail when the configured CA did not sign it. */
const UNTRUSTED_CHAIN = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
]);
/** TLS alerts a server sends when it refuses the client's certificate (or the lack of one). */
const CLIENT_CERT_REFUSED =
  /ALERT_CERTIFICATE_REQUIRED|ALERT_BAD_CERTIFICATE|ALERT_UNKNOWN_CA|ALERT_CERTIFICATE_UNKNOWN|ALERT_ACCESS_DENIED|ALERT_HANDSHAKE_FAILURE|ALERT_UNSUPPORTED_CERTIFICATE|ALERT_CERTIFICATE_EXPIRED/;
const NOT_TLS = /WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|UNKNOWN_PROTOCOL|RECORD_LAYER_FAILURE/;

interface ProbeOutcome {
  /** A sentence naming the likely cause and the key to look at; null when the probe finds nothing wrong. */
  readonly cause: string | null;
}

type Settle = (outcome: ProbeOutcome) => void;

function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(address.slice(at + 1)) };
}

/**
 * Says why a connection to Temporal most likely fails, from a TLS handshake of its own against the same address
 * with the same CA, server name and client certificate (ADR 0028): the SDK reports every TLS mistake as a connect
 * deadline ("is it running?"), which sends an operator after the wrong thing. The probe then speaks the first
 * bytes of HTTP/2, because under TLS 1.3 a server refuses a client certificate only after the handshake.
 * With TLS off it says whether anything listens, and whether what listens speaks TLS.
 *
 * @param timeoutMs - the whole probe's bound; a probe that runs out says nothing (null cause).
 * @returns the cause, or null when the handshake and the server's first answer succeed (the problem is elsewhere).
 */
export async function probeTemporalConnection(temporal: TemporalConnection, timeoutMs = 3_000): Promise<string | null> {
  const { host, port } = splitAddress(temporal.address);
  const tls = temporal.connectionOptions.tls;
  if (tls === undefined || tls === false) return (await probePlaintext(temporal.address, host, port, timeoutMs)).cause;
  const config = tls === true ? {} : tls;
  const serverName = config.serverNameOverride ?? (isIP(host) === 0 ? host : undefined);
  const options: ConnectionOptions = {
    host,
    port,
    ALPNProtocols: ['h2'],
    ...(serverName !== undefined ? { servername: serverName } : {}),
    ...(config.serverRootCACertificate ? { ca: Buffer.from(config.serverRootCACertificate) } : {}),
    ...(config.clientCertPair
      ? { cert: Buffer.from(config.clientCertPair.crt), key: Buffer.from(config.clientCertPair.key) }
      : {}),
  };
  const hasCa = config.serverRootCACertificate !== undefined;
  const hasClientCert = config.clientCertPair !== undefined;
  return (
    await withTimeout(timeoutMs, (settle, track) => {
      const socket: TLSSocket = connectTls(options);
      track(socket);
      let isSecure = false;
      socket.once('secureConnect', () => {
        isSecure = true;
        socket.write(H2_PREFACE);
      });
      socket.once('data', () => settle({ cause: null }));
      socket.once('error', (err: NodeJS.ErrnoException) =>
        settle({ cause: tlsCause(err, temporal.address, { serverName, hasCa, hasClientCert, isSecure }) })
      );
      socket.once('end', () =>
        settle({
          cause: hasClientCert
            ? `the server at ${temporal.address} closed the connection after the TLS handshake: it most likely refuses the client certificate (TEMPORAL_TLS_CLIENT_CERT_*)`
            : `the server at ${temporal.address} closed the connection after the TLS handshake: it most likely requires a client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH)`,
        })
      );
    })
  ).cause;
}

function tlsCause(
  err: NodeJS.ErrnoException,
  address: string,
  context: { serverName: string | undefined; hasCa: boolean; hasClientCert: boolean; isSecure: boolean }
): string {
  const code = err.code ?? '';
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'].includes(code)) {
    return `nothing answers at ${address} (${code}; is it running? TEMPORAL_ADDRESS selects it)`;
  }
  if (UNTRUSTED_CHAIN.has(code)) {
    return context.hasCa
      ? `the server's certificate at ${address} is not signed by the configured CA (TEMPORAL_TLS_SERVER_CA_CERT_PATH/_DATA; ${code})`
      : `the server's certificate at ${address} is not signed by a CA this machine trusts: set TEMPORAL_TLS_SERVER_CA_CERT_PATH (${code})`;
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return `the server's certificate at ${address} is outside its validity period (${code})`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const holds = (err as NodeJS.ErrnoException & { cert?: { subjectaltname?: string } }).cert?.subjectaltname;
    return `the server's certificate at ${address} is not for ${context.serverName ?? 'the address'}: set TEMPORAL_TLS_SERVER_NAME to a name it holds${holds ? ` (${holds})` : ''}`;
  }
  if (CLIENT_CERT_REFUSED.test(code)) {
    return context.hasClientCert
      ? `the server at ${address} refused the client certificate (TEMPORAL_TLS_CLIENT_CERT_*: not signed by a CA it trusts, expired, or not for client authentication; ${code})`
      : `the server at ${address} requires a client certificate: set TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (${code})`;
  }
  if (NOT_TLS.test(code) || (!context.isSecure && code === 'ECONNRESET')) {
    return `the server at ${address} does not speak TLS (${code || 'no handshake'}): set TEMPORAL_TLS=false, or point TEMPORAL_ADDRESS at its TLS port`;
  }
  return `the TLS handshake with ${address} fails (${code || err.message})`;
}

/**
 * Whether the host refuses a TCP connection to the address outright (ECONNREFUSED: nothing listens on that port).
 * The SDK's connect retries such an address until its timeout, although no retry can change the answer; a command
 * that asks this first can say so at once (ADR 0028).
 *
 * @param timeoutMs - how long the check may take; when it runs out (a host that drops packets) it says nothing.
 * @returns the sentence {@link probeTemporalConnection} gives for it ("nothing answers at …"), or null when
 *   something accepts the connection, or the check ends any other way.
 */
export async function describeRefusedAddress(address: string, timeoutMs = 1_000): Promise<string | null> {
  const { host, port } = splitAddress(address);
  const outcome = await withTimeout(timeoutMs, (settle, track) => {
    const socket = connectTcp({ host, port });
    track(socket);
    socket.once('connect', () => settle({ cause: null }));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      settle({
        cause:
          err.code === 'ECONNREFUSED'
            ? `nothing answers at ${address} (ECONNREFUSED; is it running? TEMPORAL_ADDRESS selects it)`
            : null,
      })
    );
  });
  return outcome.cause;
}

/** TLS off: does anything listen, and does it answer a TLS hello (then TLS is missing from the config)? */
async function probePlaintext(address: string, host: string, port: number, timeoutMs: number): Promise<ProbeOutcome> {
  const listening = await withTimeout(timeoutMs, (settle, track) => {
    const socket = connectTcp({ host, port });
    track(socket);
    socket.once('connect', () => settle({ cause: null }));
    socket.once('error', (err: NodeJS.ErrnoException) =>
      settle({
        cause: `nothing answers at ${address} (${err.code ?? err.message}; is it running? TEMPORAL_ADDRESS selects it)`,
      })
    );
  });
  if (listening.cause !== null) return listening;
  return withTimeout(timeoutMs, (settle, track) => {
    const socket = connectTls({ host, port, rejectUnauthorized: false, ALPNProtocols: ['h2'] });
    track(socket);
    socket.once('secureConnect', () =>
      settle({
        cause: `the server at ${address} speaks TLS but TLS is off: set TEMPORAL_TLS=true and its CA (TEMPORAL_TLS_SERVER_CA_CERT_PATH)`,
      })
    );
    socket.once('error', () => settle({ cause: null }));
    socket.once('close', () => settle({ cause: null }));
  });
}

/** Runs one probe with its sockets destroyed when it settles or runs out of time (then no cause). */
function withTimeout(
  timeoutMs: number,
  run: (settle: Settle, track: (socket: Socket) => void) => void
): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const sockets: Socket[] = [];
    let isSettled = false;
    const settle: Settle = (outcome) => {
      if (isSettled) return;
      isSettled = true;
      clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => settle({ cause: null }), timeoutMs);
    timer.unref();
    run(settle, (socket) => {
      sockets.push(socket);
      // A late error of a destroyed socket must not become an unhandled 'error' event.
      socket.on('error', () => undefined);
    });
  });
}
