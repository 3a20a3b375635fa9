import { Agent, request, type Dispatcher } from 'undici';
import { NetworkError } from './errors';

export interface HttpRequest {
  method: string;
  /** Absolute URL. */
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  durationMs: number;
}

/** One HTTP exchange; injected into clients so that tests and benchmarks can substitute it. */
export type HttpSend = (service: string, req: HttpRequest) => Promise<HttpResponse>;

export interface HttpOptions {
  /** Max sockets per origin. */
  connections?: number;
  timeoutMs?: number;
  /** Called after every exchange (debug logging); must not log headers. */
  onExchange?: (e: { service: string; method: string; path: string; status: number | string; durationMs: number }) => void;
}

/** Creates the single undici-backed sender (keep-alive pool, timeouts, typed network errors). */
export function createHttp(options: HttpOptions = {}): { send: HttpSend; close(): Promise<void> } {
  const timeout = options.timeoutMs ?? 30_000;
  const agent = new Agent({
    connections: options.connections ?? 16,
    keepAliveTimeout: 10_000,
    headersTimeout: timeout,
    bodyTimeout: timeout,
    connect: { timeout: Math.min(timeout, 10_000) },
  });
  const send: HttpSend = async (service, req) => {
    const started = performance.now();
    const u = new URL(req.url);
    const pathOnly = `${u.pathname}${u.search}`;
    let res: Dispatcher.ResponseData;
    try {
      res = await request(req.url, { method: req.method as Dispatcher.HttpMethod, headers: req.headers, body: req.body, dispatcher: agent });
    } catch (error) {
      const code = (error as { code?: string })?.code ?? (error as Error)?.name ?? 'network error';
      options.onExchange?.({ service, method: req.method, path: pathOnly, status: code, durationMs: performance.now() - started });
      throw new NetworkError(service, req.method, pathOnly, code, { cause: error });
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (error) {
      const code = (error as { code?: string })?.code ?? 'body read failed';
      throw new NetworkError(service, req.method, pathOnly, code, { cause: error });
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    const durationMs = performance.now() - started;
    options.onExchange?.({ service, method: req.method, path: pathOnly, status: res.statusCode, durationMs });
    return { status: res.statusCode, headers, text, durationMs };
  };
  return { send, close: () => agent.close() };
}
