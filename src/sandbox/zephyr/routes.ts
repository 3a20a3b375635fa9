import type { SandboxRequest, SandboxResponse } from '../types';
import { ApiError, ERR, errorResponse } from './http';
import type { JobQueue } from './jobs';
import type { ZephyrSettings } from './settings';
import type { ZephyrStore } from './store';
import { ok, type Route } from './context';
import { cycleRoutes } from './routes-cycles';
import { executionRoutes } from './routes-executions';
import { jobRoutes } from './routes-jobs';

export const API_PREFIX = '/public/rest/api/1.0';

const serverRoutes: Route[] = [
  { method: 'GET', path: '/serverinfo', handler: () => ok({ version: 'sandbox', buildNumber: 1, serverTime: Date.now() }) },
  { method: 'GET', path: '/execution/statuses', handler: (c) => ok(c.store.cfg.statuses.map((s) => ({ ...s }))) },
  { method: 'GET', path: '/teststep/statuses', handler: (c) => ok(c.store.cfg.statuses.map((s) => ({ ...s }))) },
];

export const ROUTES: Route[] = [...serverRoutes, ...cycleRoutes, ...executionRoutes, ...jobRoutes];

/** Special 405 wording: executions are never created with GET (pitfall §7.9). */
const METHOD_HINTS: Record<string, string> = {
  'GET /execution':
    'Method GET is not allowed on /public/rest/api/1.0/execution: executions are created with POST /public/rest/api/1.0/execution and a JSON body (issueId, projectId, versionId, cycleId).',
};

/**
 * Dispatch an authenticated request whose raw path is below the context path. Unknown paths → 404,
 * known paths with another method → 405, invalid JSON bodies on POST/PUT → 400 `Invalid Json`;
 * handler errors (ApiError) become the §5 envelope.
 */
export function dispatch(
  req: SandboxRequest,
  relPath: string,
  state: { store: ZephyrStore; jobs: JobQueue; settings: ZephyrSettings },
  sub: string,
): SandboxResponse {
  const { store, jobs, settings } = state;
  const method = req.method.toUpperCase();
  const path = relPath.length > 1 && relPath.endsWith('/') ? relPath.slice(0, -1) : relPath;
  if (!path.startsWith(API_PREFIX + '/')) return errorResponse(404, `No such resource: ${req.method} ${req.rawPath}`, 404, 'not-found');
  const segments = path.slice(API_PREFIX.length + 1).split('/');

  let found: { route: Route; params: Record<string, string> } | undefined;
  const otherMethods: Route[] = [];
  for (const route of ROUTES) {
    const params = matchTemplate(route.path, segments);
    if (!params) continue;
    if (route.method === method) {
      found = { route, params };
      break;
    }
    otherMethods.push(route);
  }
  if (!found) {
    if (otherMethods.length === 0) return errorResponse(404, `No such resource: ${req.method} ${req.rawPath}`, 404, 'not-found');
    const template = `${method} ${otherMethods[0].path}`;
    const hint = METHOD_HINTS[template];
    const allowed = [...new Set(otherMethods.map((r) => r.method))].join(', ');
    return {
      ...errorResponse(
        405,
        hint ?? `Method ${method} is not allowed on ${API_PREFIX}${otherMethods[0].path} (allowed: ${allowed}).`,
        405,
        template,
      ),
      headers: { allow: allowed },
    };
  }

  const routeName = `${found.route.method} ${found.route.path}`;
  const hasBody = method === 'POST' || method === 'PUT';
  if (hasBody && req.bodyParseError !== undefined) return errorResponse(400, 'Invalid Json', ERR.generic, routeName);
  try {
    const answer = found.route.handler({ req, store, jobs, settings, sub, params: found.params, body: hasBody ? req.body : undefined });
    return { ...answer, route: routeName };
  } catch (e) {
    if (e instanceof ApiError) return errorResponse(e.status, e.message, e.errorCode, routeName);
    return errorResponse(500, 'we encountered a problem during processing this request. Please try again.', ERR.internal, routeName);
  }
}

function matchTemplate(template: string, segments: string[]): Record<string, string> | null {
  const parts = template.slice(1).split('/');
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].startsWith(':')) {
      if (segments[i] === '') return null;
      params[parts[i].slice(1)] = safeDecode(segments[i]);
    } else if (parts[i] !== segments[i]) {
      return null;
    }
  }
  return params;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
