/** The fields of an RFC 9457 problem the CLI says in words (ADR 0015). */
interface Problem {
  title?: unknown;
  detail?: unknown;
  fields?: unknown;
}

/**
 * A refusal of the send API in words: `title: detail`, then `field: message` for each invalid field, instead of
 * the raw problem JSON. A body that is not a problem is quoted, cut at 500 characters.
 */
export function describeSendApiRefusal(body: string): string {
  let problem: Problem;
  try {
    problem = JSON.parse(body) as Problem;
  } catch {
    return body.slice(0, 500);
  }
  if (typeof problem !== 'object' || problem === null || typeof problem.title !== 'string') return body.slice(0, 500);
  const fields = Array.isArray(problem.fields)
    ? (problem.fields as Array<{ field?: unknown; message?: unknown }>)
        .filter((entry) => typeof entry.field === 'string' && typeof entry.message === 'string')
        .map((entry) => `${String(entry.field)}: ${String(entry.message)}`)
    : [];
  const detail = typeof problem.detail === 'string' ? `: ${problem.detail}` : '';
  return `${problem.title}${detail}${fields.length > 0 ? ` (${fields.join('; ')})` : ''}`;
}

/** Node's `fetch` causes, said in words. */
const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'nothing listens there (connection refused)',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up (DNS)',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host cannot be reached',
};

/**
 * Why `fetch(url)` failed, naming the URL: Node says only `fetch failed` with a cause such as `bad port` (a port
 * fetch never connects to, like 9 or 25) or `ECONNREFUSED`.
 */
export function describeFetchFailure(err: unknown, url: URL): string {
  const cause = err instanceof Error ? err.cause : undefined;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const message = cause instanceof Error ? cause.message : err instanceof Error ? err.message : String(err);
  let reason = (code !== undefined ? NETWORK_REASONS[code] : undefined) ?? message;
  if (message === 'bad port') {
    reason = `port ${url.port} is one fetch never connects to (a blocked port such as 9 or 25); use the API's port`;
  }
  return `cannot reach the send API at ${url.href}: ${reason}`;
}
