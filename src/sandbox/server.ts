import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo, Socket } from 'node:net';
import { adminAnswer } from './admin';
import { startFormerHost, type FormerHost, type FormerHostOptions, type FormerHostStats } from './former-host';
import { NO_FAULTS, RateLimiter, seededRandom } from './limits';
import { readBody, send, write } from './wire';
import { takeOverride, withOwnOverrides } from './overrides';
import type { RequestLogEntry, SandboxRequest, SandboxResponse, ServiceFaults, ServiceModule, ServiceName } from './types';

export type { RequestLogEntry } from './types';

/** Counters the core keeps per service: what the sandbox received and how it answered. */
export interface ServiceStats {
  requests: number;
  byRoute: Record<string, number>;
  byStatus: Record<string, number>;
  rateLimited: number;
  faultsInjected: number;
  appliedFaults: number;
  resets: number;
  /** Requests answered by a response override. */
  overridden: number;
  /** Bytes of the answer bodies sent (what a client downloads). */
  bytesOut: number;
  /** The module's own counters of what it was sent (`ServiceModule.counters`), when it keeps any. */
  counters?: Record<string, number>;
  /** Only for the service given a former host: what reached it (not counted in `requests`, logged as route `former host`). */
  formerHost?: FormerHostStats;
}

export interface SandboxCoreOptions {
  port?: number;
  host?: string;
  seed?: number;
  faults?: Partial<Record<ServiceName, Partial<ServiceFaults>>>;
  /** Monotonic clock (ms) for rate limits and arrival times. Default `performance.now()`. For tests. */
  now?: () => number;
  /** Also start a former host for one service, redirecting to this sandbox (see `FormerHostOptions`). */
  formerHost?: FormerHostOptions;
}

/** The running sandbox: origin, env for the reporter, state, stats and run-time fault switches. */
export interface RunningSandbox {
  readonly origin: string;
  readonly port: number;
  readonly modules: ServiceModule[];
  /** Origin of the former host when one was asked for (`SandboxCoreOptions.formerHost`). */
  readonly formerOrigin: string | undefined;
  /** Env for the reporter; with a former host, that service's base URL points at the former host. */
  env(): Record<string, string>;
  state(): Record<string, unknown>;
  stats(): Record<string, ServiceStats>;
  log(): RequestLogEntry[];
  setFaults(service: ServiceName, faults: Partial<ServiceFaults>): void;
  faults(service: ServiceName): ServiceFaults;
  /** Changes a module's own behaviour switches (`ServiceModule.configure`); returns them. */
  configure(service: ServiceName, patch: Record<string, unknown>): unknown;
  /** Every module's behaviour switches, by service. */
  settings(): Record<string, unknown>;
  reset(): void;
  close(): Promise<void>;
}

const ADMIN = '/__sandbox';
const MAX_LOG = 500_000;

function emptyStats(): ServiceStats {
  return {
    requests: 0,
    byRoute: {},
    byStatus: {},
    rateLimited: 0,
    faultsInjected: 0,
    appliedFaults: 0,
    resets: 0,
    overridden: 0,
    bytesOut: 0,
  };
}

/**
 * Starts the HTTP core that fronts the service modules. The core owns the cross-cutting behaviour
 * (latency, 429s, injected 500s, connection resets, outages, counting) so that each module only
 * models its service.
 */
export async function startSandboxCore(modules: ServiceModule[], options: SandboxCoreOptions = {}): Promise<RunningSandbox> {
  const random = seededRandom(options.seed ?? 42);
  const now = options.now ?? (() => performance.now());
  const faults = new Map<ServiceName, ServiceFaults>();
  const limiters = new Map<ServiceName, RateLimiter>();
  const stats = new Map<ServiceName, ServiceStats>();
  const requestLog: RequestLogEntry[] = [];
  for (const m of modules) {
    faults.set(m.name, withOwnOverrides({ ...NO_FAULTS, ...(m.defaultFaults ?? {}), ...(options.faults?.[m.name] ?? {}) }));
    limiters.set(m.name, new RateLimiter(m.rateLimitStyle));
    stats.set(m.name, emptyStats());
  }
  const sockets = new Set<Socket>();
  let origin = '';
  let former: FormerHost | undefined;
  const countersOf = (name: ServiceName) => ({ counters: modules.find((m) => m.name === name)?.counters?.() });
  const formerStats = (): FormerHostStats | undefined =>
    former && { origin: former.origin, status: former.status, requests: 0, byMethod: {} };

  const sandbox: RunningSandbox = {
    get origin() {
      return origin;
    },
    get port() {
      return Number(new URL(origin).port);
    },
    modules,
    get formerOrigin() {
      return former?.origin;
    },
    env: () => Object.assign({}, ...modules.map((m) => m.env(former && m.name === options.formerHost?.service ? former.origin : origin))),
    state: () => Object.fromEntries(modules.map((m) => [m.name, m.snapshot()])),
    stats: () => Object.fromEntries([...stats].map(([k, v]) => [k, { ...structuredClone(v), ...countersOf(k) }])),
    log: () => requestLog.slice(),
    setFaults: (service, patch) => {
      const current = faults.get(service);
      if (!current) throw new Error(`unknown service ${service}`);
      faults.set(service, withOwnOverrides({ ...current, ...patch }));
    },
    faults: (service) => withOwnOverrides({ ...(faults.get(service) ?? NO_FAULTS) }),
    configure: (service, patch) => {
      const m = modules.find((x) => x.name === service);
      if (!m) throw new Error(`unknown service ${service}`);
      if (!m.configure) throw new Error(`the ${service} sandbox has no settings`);
      return m.configure(patch);
    },
    settings: () => Object.fromEntries(modules.filter((m) => m.settings).map((m) => [m.name, m.settings?.()])),
    reset: () => {
      for (const m of modules) {
        m.reset();
        stats.set(m.name, emptyStats());
        limiters.get(m.name)?.reset();
      }
      if (former) stats.get(options.formerHost!.service)!.formerHost = formerStats();
      requestLog.length = 0;
    },
    close: async () => {
      await former?.close();
      await new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      });
    },
  };

  const server: Server = createServer((req, res) => {
    void serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`sandbox internal error: ${(error as Error)?.message ?? String(error)}`);
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawTarget = req.url ?? '/';
    const rawBytes = await readBody(req);
    const rawBody = rawBytes.toString('utf8');
    const q = rawTarget.indexOf('?');
    const rawPath = q < 0 ? rawTarget : rawTarget.slice(0, q);
    const rawQuery = q < 0 ? '' : rawTarget.slice(q + 1).split('#')[0];
    if (rawPath.startsWith(ADMIN)) return send(res, adminAnswer(sandbox, req.method ?? 'GET', rawPath.slice(ADMIN.length), rawBody));

    const module = modules.find((m) => m.matches(rawPath));
    if (!module) return send(res, { status: 404, body: { error: `no sandbox service at ${rawPath}` } });
    const f = faults.get(module.name) as ServiceFaults;
    const st = stats.get(module.name) as ServiceStats;
    st.requests++;
    if (f.down || (f.resetRate > 0 && random() < f.resetRate)) {
      st.resets++;
      req.socket.destroy();
      return;
    }
    let body: unknown;
    let bodyParseError: string | undefined;
    if (rawBody.trim() !== '') {
      try {
        body = JSON.parse(rawBody);
      } catch (e) {
        bodyParseError = (e as Error).message;
      }
    }
    const sreq: SandboxRequest = {
      method: (req.method ?? 'GET').toUpperCase(),
      rawTarget,
      rawPath,
      rawQuery,
      query: new URLSearchParams(rawQuery),
      headers: req.headers,
      rawBody,
      rawBytes,
      body,
      bodyParseError,
      receivedAt: now(),
    };
    if (f.latencyMs > 0) await new Promise((r) => setTimeout(r, f.latencyMs));

    let answer: SandboxResponse;
    let waitSeconds: number | undefined;
    const wait = limiters.get(module.name)!.take(module.rateLimitKey(sreq, req.socket.remoteAddress ?? ''), now(), f.rateLimit);
    if (wait > 0) {
      st.rateLimited++;
      waitSeconds = Math.max(1, Math.ceil(wait / 1000));
      answer = { ...module.rateLimitResponse(waitSeconds), route: 'rate-limited' };
    } else {
      const canned = takeOverride(f, sreq);
      // An `applied` override lets the request take effect first (unless it is refused), then answers its canned reply.
      const handled = canned?.applied ? (module.authenticate(sreq) ?? (await module.handle(sreq))) : undefined;
      if (canned && !(handled && handled.status >= 300)) {
        st.overridden++;
        answer = { status: canned.status, headers: { ...(canned.headers ?? {}) }, body: canned.body, route: 'override' };
      } else if (handled) {
        answer = handled;
      } else {
        answer = module.authenticate(sreq) ?? (await handleWithFaults(module, sreq, f, st));
      }
    }
    const route = answer.route ?? `${sreq.method} ?`;
    st.byRoute[route] = (st.byRoute[route] ?? 0) + 1;
    st.byStatus[answer.status] = (st.byStatus[answer.status] ?? 0) + 1;
    if (requestLog.length < MAX_LOG) {
      const bodyDigest = rawBytes.length ? createHash('sha256').update(rawBytes).digest('hex').slice(0, 12) : undefined;
      const entry: RequestLogEntry = {
        service: module.name,
        method: sreq.method,
        target: rawTarget,
        route,
        status: answer.status,
        at: Date.now(),
      };
      requestLog.push({ ...entry, ...(waitSeconds === undefined ? {} : { waitSeconds }), ...(bodyDigest ? { bodyDigest } : {}) });
    }
    st.bytesOut += write(res, answer);
  }

  async function handleWithFaults(
    module: ServiceModule,
    sreq: SandboxRequest,
    f: ServiceFaults,
    st: ServiceStats,
  ): Promise<SandboxResponse> {
    if (f.faultRate > 0 && random() < f.faultRate) {
      st.faultsInjected++;
      return { ...module.faultResponse(), route: 'fault' };
    }
    const answer = await module.handle(sreq);
    // "Applied, then 500": the write took effect but the client is told it failed (the case that
    // makes naive retries create duplicates).
    if (sreq.method !== 'GET' && answer.status < 300 && f.appliedFaultRate > 0 && random() < f.appliedFaultRate) {
      st.appliedFaults++;
      return { ...module.faultResponse(), route: `${answer.route ?? sreq.method} (applied, then 500)` };
    }
    return answer;
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  origin = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
  if (options.formerHost) await addFormerHost(options.formerHost, addr.address);
  return sandbox;

  async function addFormerHost(o: FormerHostOptions, host: string): Promise<void> {
    const st = stats.get(o.service);
    if (!st) {
      server.close();
      throw new Error(`sandbox: no service ${o.service} for the former host`);
    }
    former = await startFormerHost(
      o,
      host,
      () => origin,
      (method, target) => {
        const counts = stats.get(o.service)!.formerHost!;
        counts.requests++;
        counts.byMethod[method] = (counts.byMethod[method] ?? 0) + 1;
        if (requestLog.length < MAX_LOG)
          requestLog.push({ service: o.service, method, target, route: 'former host', status: counts.status, at: Date.now() });
      },
    ).catch((e: unknown) => {
      server.close();
      throw e;
    });
    st.formerHost = formerStats();
  }
}
