/**
 * What a connection URL asks for that pg (node-postgres 8, the pure-JS client) does not do, as
 * sentences for the log; never the URL itself, which may hold a password. libpq reads
 * `postgres://h1:5432,h2:5432/db?target_session_attrs=read-write` as "try each host until one takes
 * writes"; pg 8 connects to a single host and ignores `target_session_attrs`
 * (https://github.com/brianc/node-postgres/issues/2781). Put a proxy or a virtual IP that follows
 * the primary in front instead (PgBouncer, HAProxy with Patroni's health checks).
 */
export function unsupportedUrlParts(url: string): string[] {
  const parts: string[] = [];
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1] ?? '';
  const hosts = authority.slice(authority.lastIndexOf('@') + 1);
  if (hosts.includes(',')) {
    parts.push(
      'the database URL names several hosts: pg connects to one host only and fails on this URL; put a proxy or a virtual IP that follows the primary in front',
    );
  }
  const attrs = /[?&]target_session_attrs=([^&#]*)/.exec(url)?.[1];
  if (attrs !== undefined && attrs !== 'any') {
    parts.push(
      `the database URL asks for target_session_attrs=${decodeURIComponent(attrs)}: pg ignores it and takes the first host that answers`,
    );
  }
  return parts;
}
