/** Thrown when a server cannot bind its configured address; names the setting that chooses it. */
export class ListenAddressError extends Error {
  override readonly name = 'ListenAddressError';
}

/**
 * The sentence for a failed `listen` of a server whose address comes from settings: `listen EADDRINUSE` named
 * neither the port's owner nor the setting that moves it, `getaddrinfo ENOTFOUND` not the setting that named the
 * host. Errors other than a taken, unusable or unresolvable address are returned unchanged.
 *
 * @param settings - the settings that choose the address, e.g. `DASHBOARD_HOST/DASHBOARD_PORT`.
 */
export function explainListenError(
  err: unknown,
  server: string,
  host: string,
  port: number,
  settings: string
): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${String(port)}`;
  if (code === 'EADDRINUSE') {
    return new ListenAddressError(
      `the ${server} cannot listen on ${where}: the port is already in use (find its owner with ` +
        `ss -ltnp 'sport = :${String(port)}'); stop it or choose another with ${settings}`,
      { cause: err }
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'EACCES') {
    const reason =
      code === 'EACCES' ? 'ports below 1024 need privileges' : 'no interface of this machine has that address';
    return new ListenAddressError(`the ${server} cannot listen on ${where}: ${reason}; set ${settings}`, {
      cause: err,
    });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    const reason = code === 'ENOTFOUND' ? 'the host name does not resolve' : 'the host name could not be resolved now';
    return new ListenAddressError(`the ${server} cannot listen on ${where}: ${reason} (${code}); set ${settings}`, {
      cause: err,
    });
  }
  return err;
}
