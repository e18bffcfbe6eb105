/**
 * HTTP load generator for `bench/ingest-api.ts`, run in a `worker_threads` Worker so that client work
 * never runs on the server's event loop (ADR 0006). It is a lean keep-alive HTTP/1.1 client
 * over raw loopback sockets, as wrk and autocannon are: requests arrive already serialized (headers,
 * signature and body, built before the clock starts), one request in flight per connection, and each
 * answer is read up to its `Content-Length` and checked for the expected status.
 */
import { connect, type Socket } from 'node:net';
import { isMainThread, parentPort } from 'node:worker_threads';

/** One measurement: send every request with `concurrency` connections to 127.0.0.1:`port`. */
export interface LoadRun {
  port: number;
  concurrency: number;
  /** Complete HTTP/1.1 requests (head and body), each sent once. */
  requests: Uint8Array[];
  expectedStatus: number;
}

/** Outcome of a {@link LoadRun}: wall time from the first request sent to the last answer read. */
export interface LoadResult {
  seconds: number;
  /** Answers whose status differed from `expectedStatus`, or requests never answered. */
  failures: number;
  error?: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

/** Reads answers from one keep-alive connection; calls `onAnswer(status)` once per complete answer. */
function readAnswers(socket: Socket, onAnswer: (status: number) => void, onError: (err: Error) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const headEnd = pending.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const head = pending.toString('latin1', 0, headEnd);
      const length = CONTENT_LENGTH.exec(head)?.[1];
      if (length === undefined) return onError(new Error('answer without Content-Length'));
      const end = headEnd + HEAD_END.length + Number(length);
      if (pending.length < end) return;
      pending = pending.subarray(end);
      onAnswer(Number(head.slice(9, 12)));
    }
  });
}

function openConnection(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, noDelay: true }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Runs one measurement. Connections are opened before the clock starts; each then sends its next
 * request as soon as the previous answer is complete, until all requests are sent.
 */
export async function runLoad(run: LoadRun): Promise<LoadResult> {
  let sockets: Socket[] = [];
  let next = 0;
  let answered = 0;
  let failures = 0;
  try {
    sockets = await Promise.all(Array.from({ length: run.concurrency }, () => openConnection(run.port)));
    const started = process.hrtime.bigint();
    await new Promise<void>((resolve, reject) => {
      const sendNext = (socket: Socket): void => {
        const request = run.requests[next++];
        if (request !== undefined) socket.write(request);
      };
      for (const socket of sockets) {
        socket.on('error', reject);
        socket.on('close', () => reject(new Error('connection closed by the server')));
        readAnswers(
          socket,
          (status) => {
            if (status !== run.expectedStatus) failures += 1;
            answered += 1;
            if (answered === run.requests.length) resolve();
            else sendNext(socket);
          },
          reject
        );
        sendNext(socket);
      }
    });
    return { seconds: Number(process.hrtime.bigint() - started) / 1e9, failures };
  } catch (err) {
    return { seconds: 0, failures: run.requests.length - answered + failures, error: String(err) };
  } finally {
    for (const socket of sockets) socket.removeAllListeners('close').destroy();
  }
}

/** Serializes one signed POST as the bytes {@link runLoad} sends (keep-alive, loopback host). */
export function serializeRequest(port: number, path: string, headers: Record<string, string>, body: string): Buffer {
  const lines = [`POST ${path} HTTP/1.1`, `host: 127.0.0.1:${port}`, 'connection: keep-alive'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${Buffer.byteLength(body)}`, '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), Buffer.from(body, 'utf8')]);
}

// As a worker: answer each posted LoadRun with its LoadResult, one at a time.
if (!isMainThread && parentPort) {
  const port = parentPort;
  port.on('message', (run: LoadRun) => {
    void runLoad(run).then((result) => port.postMessage(result));
  });
}
