// `scheme://user:password@` or `scheme://token@` before a host: the userinfo part of a URL (RFC 3986 §3.2.1).
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"<>]+@/gi;

/**
 * Replaces the userinfo of every URL in `text` by `***` (`https://user:pw@host/x` → `https://***@host/x`), so a
 * URL is logged and recorded without its credentials (ADR 0022). Text without such URLs is returned as is.
 */
export function redactUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, '$1***@');
}

/**
 * An error fit to be logged or to become a Temporal failure's cause: `err` itself when neither its message nor its
 * stack holds URL credentials, else a copy with them redacted ({@link redactUrlCredentials}), keeping its name,
 * `code` and (redacted) cause chain. Non-errors pass through.
 */
export function withoutUrlCredentials<T>(err: T, depth = 0): T {
  if (!(err instanceof Error)) return err;
  const message = redactUrlCredentials(err.message);
  const stack = err.stack === undefined ? undefined : redactUrlCredentials(err.stack);
  const cause = depth < 5 ? withoutUrlCredentials(err.cause, depth + 1) : undefined;
  if (message === err.message && stack === err.stack && cause === err.cause) return err;
  const copy = new Error(message, cause === undefined ? undefined : { cause });
  copy.name = err.name;
  if (stack !== undefined) copy.stack = stack;
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== undefined) (copy as NodeJS.ErrnoException).code = code;
  return copy as T;
}
