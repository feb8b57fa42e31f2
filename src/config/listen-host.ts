import { isIP } from 'node:net';

/**
 * Where a service listens. Without API keys every client is served with no question asked, so a
 * keyless table binds loopback only unless the operator says `--open` (or AUTOTIER_OPEN=1). With keys
 * the host stands as configured. @default host: 0.0.0.0 with keys, 127.0.0.1 without
 */
export interface ListenHostInput {
  /** AUTOTIER_HOST or --host; undefined when neither is given. */
  host: string | undefined;
  /** --open or AUTOTIER_OPEN=1. */
  open: boolean;
  /** The table has no API keys (open mode). */
  keyless: boolean;
}

export interface ListenHost {
  host: string;
  /** The service may serve a keyless table on this host (a reload to one is refused otherwise). */
  keylessAllowed: boolean;
  /** A line for the log when serving keyless, else undefined. */
  warning: string | undefined;
}

/** 127.0.0.0/8, ::1, their IPv4-mapped forms and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  const ipv4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  if (isIP(ipv4) === 4) return ipv4.startsWith('127.');
  return isIP(bare) === 6 && /^(?:0{0,4}:){2,7}0{0,3}1$|^::1$/.test(bare);
}

/**
 * The host to listen on, or an Error saying why not: a keyless table on an explicit non-loopback host
 * without --open is refused at start (a clear stop beats a service that listens somewhere the operator
 * did not ask for).
 */
export function toListenHost(input: ListenHostInput): ListenHost {
  const { host, open, keyless } = input;
  if (!keyless) {
    const bound = host ?? '0.0.0.0';
    return { host: bound, keylessAllowed: open || isLoopbackHost(bound), warning: undefined };
  }
  if (open)
    return {
      host: host ?? '0.0.0.0',
      keylessAllowed: true,
      warning: 'no API keys configured and --open: open mode, every client that reaches the port is served',
    };
  if (host !== undefined && !isLoopbackHost(host))
    throw new Error(
      `the routing table has no API keys and the host is ${host}: a keyless service listens on loopback only. ` +
        'Add api_keys (or api_keys_file) to the table, or start with --open (AUTOTIER_OPEN=1) to serve every client on that host.',
    );
  return {
    host: host ?? '127.0.0.1',
    keylessAllowed: true,
    warning:
      'no API keys configured: open mode on loopback only; --open (AUTOTIER_OPEN=1) serves other hosts',
  };
}
