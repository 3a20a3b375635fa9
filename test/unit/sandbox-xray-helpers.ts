/** Shared set-up of the Xray sandbox unit tests: a core with only this module, one controlled clock, HTTP helpers. */
import { startSandboxCore, type RunningSandbox } from '../../src/sandbox/server';
import { createXrayModule, XRAY_DEFAULTS, type XrayModule, type XraySandboxOptions } from '../../src/sandbox/xray';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface XrayHarness {
  sandbox: RunningSandbox;
  module: XrayModule;
  /** Wall clock (ms) of the module and monotonic clock of the core: tests move it instead of sleeping. */
  clock: { now: number };
  /** `<origin>/xray` (the global host). */
  base: string;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** A token from `authenticate` (fetched once, then reused). */
  token(): Promise<string>;
  /** POST with the bearer token. */
  api(path: string, body: unknown, extra?: Record<string, string>): Promise<Answer>;
  gql(query: string, variables?: Record<string, unknown>): Promise<Answer>;
  importJson(doc: unknown): Promise<Answer>;
  state(): any;
  counters(): Record<string, number>;
  close(): Promise<void>;
}

export const CREDENTIALS = { client_id: XRAY_DEFAULTS.clientId, client_secret: XRAY_DEFAULTS.clientSecret };

export async function startXray(options: XraySandboxOptions = {}): Promise<XrayHarness> {
  const clock = { now: Date.UTC(2026, 10, 26, 7, 40) };
  const module = createXrayModule({ testCount: 150, rateLimit: null, clock: () => clock.now, ...options });
  const sandbox = await startSandboxCore([module], { now: () => clock.now });
  const base = `${sandbox.origin}/xray`;
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const isRaw = typeof body === 'string' || body instanceof FormData;
    const res = await fetch(base + path, {
      method: 'POST',
      headers: isRaw ? headers : { 'content-type': 'application/json', ...headers },
      body: isRaw ? (body as string | FormData) : JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
  let token: string | undefined;
  const getToken = async () => {
    if (!token) {
      const a = await post('/api/v2/authenticate', CREDENTIALS);
      if (a.status !== 200) throw new Error(`authenticate answered ${a.status} ${a.text}`);
      token = a.json as string;
    }
    return token;
  };
  const api = async (path: string, body: unknown, extra: Record<string, string> = {}) =>
    post(path, body, { authorization: `Bearer ${await getToken()}`, ...extra });
  return {
    sandbox,
    module,
    clock,
    base,
    post,
    token: getToken,
    api,
    gql: (query, variables = {}) => api('/api/v2/graphql', { query, variables }),
    importJson: (doc) => api('/api/v2/import/execution', doc),
    state: () => (sandbox.state() as any).xray,
    counters: () => (sandbox.stats() as any).xray.counters,
    close: () => sandbox.close(),
  };
}

/** An evidence object of the import (`contentType`, base64 `data`). */
export function file(filename: string, text = 'hello'): { filename: string; contentType: string; data: string } {
  return { filename, contentType: 'text/plain', data: Buffer.from(text).toString('base64') };
}
