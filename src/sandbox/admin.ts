import type { ServiceFaults, ServiceName, SandboxResponse } from './types';

/** What the admin API reads and changes: the running sandbox as seen from here (the server hands itself in). */
export interface AdminControls {
  readonly modules: ReadonlyArray<{ readonly name: ServiceName }>;
  state(): unknown;
  stats(): unknown;
  log(): unknown;
  setFaults(service: ServiceName, faults: Partial<ServiceFaults>): void;
  faults(service: ServiceName): ServiceFaults;
  configure(service: ServiceName, patch: Record<string, unknown>): unknown;
  settings(): unknown;
  reset(): void;
}

/**
 * The admin API under `/__sandbox` (tests, demo, bench and the CLI's users drive the sandbox through it):
 * state, stats and the request log to read; faults (core) and settings (each module's own switches) to change.
 */
export function adminAnswer(sandbox: AdminControls, method: string, path: string, rawBody: string): SandboxResponse {
  const faultsByService = () => Object.fromEntries(sandbox.modules.map((m) => [m.name, sandbox.faults(m.name)]));
  try {
    if (method === 'GET' && (path === '/state' || path === '/state/')) return { status: 200, body: sandbox.state() };
    if (method === 'GET' && path === '/stats') return { status: 200, body: sandbox.stats() };
    if (method === 'GET' && path === '/log') return { status: 200, body: sandbox.log() };
    if (method === 'GET' && path === '/faults') return { status: 200, body: faultsByService() };
    if (method === 'POST' && path === '/faults') {
      const patch = JSON.parse(rawBody || '{}') as Record<ServiceName, Partial<ServiceFaults>>;
      for (const [name, p] of Object.entries(patch)) sandbox.setFaults(name, p ?? {});
      return { status: 200, body: faultsByService() };
    }
    if (method === 'GET' && path === '/settings') return { status: 200, body: sandbox.settings() };
    if (method === 'POST' && path === '/settings') {
      const patch = JSON.parse(rawBody || '{}') as Record<ServiceName, Record<string, unknown>>;
      for (const [name, p] of Object.entries(patch)) sandbox.configure(name, p ?? {});
      return { status: 200, body: sandbox.settings() };
    }
    if (method === 'POST' && path === '/reset') {
      sandbox.reset();
      return { status: 200, body: { ok: true } };
    }
    return { status: 404, body: { error: `unknown admin route ${method} ${path}` } };
  } catch (e) {
    return { status: 400, body: { error: (e as Error).message } };
  }
}
