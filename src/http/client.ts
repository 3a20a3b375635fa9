import { NetworkError, RedirectError } from './errors';
import {
  credentialsMayFollow,
  isPermanent,
  MAX_REDIRECTS,
  normalizeUrl,
  REDIRECT_STATUSES,
  RedirectMemory,
  redirectAllowed,
  rewriteOf,
  type Rewrite,
} from './redirects';
import { createWire, type WireBody } from './wire';

export interface HttpRequest {
  method: string;
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  /** Re-sendable as is on a redirect: a string, or a FormData (multipart uploads; Node's global, i.e. undici's). */
  body?: string | FormData;
  /**
   * Names of the headers that carry credentials. They travel along the redirect chain only to the
   * service itself (the origin first asked, or one of `homes`); a hop anywhere else, or to a target the
   * rules refuse, is not requested at all, and the error it raises names only the target's origin.
   */
  credentialHeaders?: readonly string[];
  /** The service's own hosts (lower case), e.g. its former and current site. */
  homes?: readonly string[];
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  durationMs: number;
}

/**
 * Whether a body is a multipart FormData. By its tag, not `instanceof FormData`: reading Node's global
 * FormData loads its bundled undici (≈ 20 ms of CPU in Playwright's process) even when nothing is uploaded.
 */
export function isFormData(body: unknown): body is FormData {
  return typeof body === 'object' && body !== null && Object.prototype.toString.call(body) === '[object FormData]';
}

/** One HTTP exchange; injected into clients so that tests and benchmarks can substitute it. */
export type HttpSend = (service: string, req: HttpRequest) => Promise<HttpResponse>;

export interface ExchangeEvent {
  service: string;
  method: string;
  path: string;
  status: number | string;
  durationMs: number;
  /** On a redirect's own exchange: where it pointed (origin + path, no query). */
  redirectTo?: string;
}

export interface RedirectEvent {
  service: string;
  /** URL prefix (origin + path prefix) that moved. */
  from: string;
  /** What replaces it. */
  to: string;
  /** true: remembered for the rest of the run. false: a temporary one, reported once per from→to. */
  permanent: boolean;
}

export interface HttpOptions {
  timeoutMs?: number;
  /** Called after every exchange, redirects included (debug logging); must not log headers. */
  onExchange?: (e: ExchangeEvent) => void;
  /**
   * Called once per learned permanent rewrite (and once per distinct temporary one), so the caller can
   * say "configure <to> instead" once and journal it. Not called for seeded rewrites.
   */
  onRedirect?: (e: RedirectEvent) => void;
  /** Permanent rewrites known beforehand (replay of a journal); same validation as live ones. */
  redirects?: ReadonlyArray<Rewrite>;
}

export interface Http {
  send: HttpSend;
  close(): Promise<void>;
  /** Every permanent rewrite in force (seeded and learned), e.g. to journal them. */
  redirects(): Rewrite[];
  /** Adds permanent rewrites (replay); throws on a target the redirect rules refuse. */
  seedRedirects(rules: ReadonlyArray<Rewrite>): void;
  /** Where a URL goes now, e.g. `rewrite(configuredBaseUrl)` is the base URL to configure instead. */
  rewrite(url: string): string;
}

interface Answer {
  res: HttpResponse;
  location?: string;
}

/** Creates the single sender (keep-alive pool, timeouts, redirects, typed network errors). */
export function createHttp(options: HttpOptions = {}): Http {
  const wire = createWire(options.timeoutMs ?? 30_000);
  const memory = new RedirectMemory();
  if (options.redirects) memory.seed(options.redirects);
  const temporarySeen = new Set<string>();

  /** One request/answer, no redirect handling. */
  const once = async (service: string, req: HttpRequest, url: string): Promise<Answer> => {
    const started = performance.now();
    const u = new URL(url);
    const pathOnly = `${u.pathname}${u.search}`;
    let answer;
    try {
      answer = await wire.exchange(u, req.method, req.headers, await encode(req.body));
    } catch (error) {
      const code = (error as { code?: string })?.code ?? (error as Error)?.name ?? 'network error';
      options.onExchange?.({ service, method: req.method, path: pathOnly, status: code, durationMs: performance.now() - started });
      throw new NetworkError(service, req.method, pathOnly, code, { cause: error, host: u.host, answered: answeredBefore(error) });
    }
    const { status, headers } = answer;
    const location = REDIRECT_STATUSES.has(status) ? headers.location : undefined;
    // A redirect's body is never read by anyone.
    const text = location ? '' : answer.text;
    const durationMs = performance.now() - started;
    const redirectTo = location ? targetOf(location, url) : undefined;
    options.onExchange?.({
      service,
      method: req.method,
      path: pathOnly,
      status,
      durationMs,
      ...(redirectTo ? { redirectTo: redirectTo.origin + redirectTo.pathname } : {}),
    });
    return { res: { status, headers, text, durationMs }, location };
  };

  const send: HttpSend = async (service, req) => {
    const started = performance.now();
    let url = memory.apply(req.url);
    const start = new URL(url);
    const carriesCredentials = (req.credentialHeaders?.length ?? 0) > 0;
    for (let hop = 0; ; hop++) {
      const { res, location } = await once(service, req, url);
      const target = location ? targetOf(location, url) : undefined;
      // No (readable) Location: the caller sees the 3xx as the answer it is.
      if (!target) return { ...res, durationMs: performance.now() - started };
      const current = new URL(url);
      const where = `${current.pathname}${current.search}`;
      if (hop >= MAX_REDIRECTS) throw new RedirectError(service, req.method, where, 'too-many', target.origin);
      if (!redirectAllowed(target)) throw new RedirectError(service, req.method, where, 'refused', target.origin);
      if (carriesCredentials && !credentialsMayFollow(start, target, req.homes ?? []))
        throw new RedirectError(service, req.method, where, 'foreign', target.origin);
      if (isPermanent(res.status)) {
        const learned = memory.learn(service, current, target);
        if (learned) options.onRedirect?.({ service, from: learned.from, to: learned.to, permanent: true });
      } else if (options.onRedirect) {
        const rule = rewriteOf(current, target) ?? { from: current.origin + current.pathname, to: target.origin + target.pathname };
        const key = `${rule.from} ${rule.to}`;
        if (!temporarySeen.has(key)) {
          temporarySeen.add(key);
          options.onRedirect({ service, ...rule, permanent: false });
        }
      }
      url = normalizeUrl(target);
    }
  };

  return {
    send,
    close: async () => wire.close(),
    redirects: () => memory.all(),
    seedRedirects: (rules) => memory.seed(rules),
    rewrite: (url) => memory.apply(url),
  };
}

/**
 * The bytes of a body. A FormData is encoded by undici's own fetch Response (Node's global): the same
 * boundary and part headers fetch would send, and a Content-Type naming that boundary.
 */
async function encode(body: HttpRequest['body']): Promise<WireBody | undefined> {
  if (body === undefined || typeof body === 'string') return body === undefined ? undefined : { bytes: body };
  const encoded = new Response(body);
  return { bytes: new Uint8Array(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type') ?? undefined };
}

/** The wire marks a failure after the answer's head came (the body cut short): the service was there. */
function answeredBefore(error: unknown): boolean {
  return (error as { answered?: unknown } | undefined)?.answered === true;
}

/** The absolute target of a Location header (relative ones resolve against the current URL). */
function targetOf(location: string, current: string): URL | undefined {
  try {
    const t = new URL(location, current);
    t.hash = '';
    return t;
  } catch {
    return undefined;
  }
}
