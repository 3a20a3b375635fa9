import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ServiceName } from './types';

/** The redirect statuses a moved service may answer on its former host (no capture shows which one is used). */
export type RedirectStatus = 301 | 302 | 307 | 308;
export const REDIRECT_STATUSES: readonly RedirectStatus[] = [301, 302, 307, 308];

/**
 * A service's former host (field evidence: CucumberStudio moved to a new host and the old one redirects): a
 * second listener on its own port that answers every request with a redirect to the same path and query on
 * the sandbox, so a user "still on the old default" can be simulated. When it is on, `sandbox.env()` points
 * that service's base URL at it.
 */
export interface FormerHostOptions {
  /** The service whose users are on the former host (its module's `env()` gets the former origin). */
  service: ServiceName;
  /** Default 301 (moved permanently). */
  status?: RedirectStatus;
}

/** What the former host received: every request, by method. */
export interface FormerHostStats {
  origin: string;
  status: RedirectStatus;
  requests: number;
  byMethod: Record<string, number>;
}

export interface FormerHost {
  readonly origin: string;
  readonly status: RedirectStatus;
  close(): Promise<void>;
}

/**
 * Starts the former host on an ephemeral port of `host`. Each request's body is read in full (a client
 * re-sends it after a 307/308), then answered with `status`, `Location: <target()><path and query>` and
 * an empty body; `onRequest` sees it first.
 */
export async function startFormerHost(
  options: FormerHostOptions,
  host: string,
  target: () => string,
  onRequest: (method: string, rawTarget: string) => void,
): Promise<FormerHost> {
  const status = options.status ?? 301;
  if (!REDIRECT_STATUSES.includes(status)) {
    throw new Error(`sandbox: the former host's status must be one of ${REDIRECT_STATUSES.join(', ')}, got ${String(status)}`);
  }
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const rawTarget = req.url ?? '/';
      onRequest((req.method ?? 'GET').toUpperCase(), rawTarget);
      res.writeHead(status, { location: target() + rawTarget, 'content-length': '0' });
      res.end();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const origin = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
  return {
    origin,
    status,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
