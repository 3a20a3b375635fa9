import type { SandboxRequest, SandboxResponse } from '../types';
import type { JobQueue } from './jobs';
import type { JobTokenStyle, ZephyrSettings } from './settings';
import type { ZephyrStore } from './store';

/** What a handler sees: the request, the state, the acting user (token `sub`) and the path parameters. */
export interface RouteContext {
  req: SandboxRequest;
  store: ZephyrStore;
  jobs: JobQueue;
  sub: string;
  params: Record<string, string>;
  /** The parsed JSON body for POST/PUT (undefined when empty or for GET/DELETE). */
  body: unknown;
  /** The module's run-time switches (`settings.ts`). */
  settings: ZephyrSettings;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Template relative to `/public/rest/api/1.0` (or `/public/rest/api/2.0` with `api: 2`), e.g. `/cycle/:id`. */
  path: string;
  /** The API generation the path is under; default 1. */
  api?: 1 | 2;
  /** The body is `multipart/form-data`, not JSON: the handler reads `req.rawBytes` itself. */
  multipart?: boolean;
  handler: (ctx: RouteContext) => SandboxResponse | Promise<SandboxResponse>;
}

export const ok = (body: unknown): SandboxResponse => ({ status: 200, body });

/**
 * A job token in the configured shape (`JobTokenStyle`). Production's is the bare text, not JSON: clients put
 * it straight into the jobprogress URL.
 */
export function tokenAnswer(token: string, style: JobTokenStyle): SandboxResponse {
  switch (style) {
    case 'text':
      return { status: 200, headers: { 'content-type': 'text/plain;charset=UTF-8' }, body: token };
    case 'json-string':
      return { status: 200, headers: { 'content-type': 'application/json;charset=UTF-8' }, body: JSON.stringify(token) };
    case 'object':
      return ok({ jobProgressToken: token });
  }
}
