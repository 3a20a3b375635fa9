import type { SandboxRequest, SandboxResponse } from '../types';
import { ApiError, ERR, errorResponse } from './http';
import type { JobQueue } from './jobs';
import type { ZephyrSettings } from './settings';
import type { ZephyrStore } from './store';
import { ok, type Route } from './context';
import { cycleRoutes } from './routes-cycles';
import { folderRoutes } from './routes-folders';
import { executionRoutes } from './routes-executions';
import { jobRoutes } from './routes-jobs';
import { attachmentRoutes } from './routes-attachments';
import { stepRoutes } from './routes-steps';

export const API_PREFIX = '/public/rest/api/1.0';
/** `{api2}`: a handful of newer endpoints (routes with `api: 2`). */
export const API2_PREFIX = '/public/rest/api/2.0';

const serverRoutes: Route[] = [
  { method: 'GET', path: '/serverinfo', handler: () => ok({ version: 'sandbox', buildNumber: 1, serverTime: Date.now() }) },
  { method: 'GET', path: '/execution/statuses', handler: (c) => ok(c.store.cfg.statuses.map((s) => ({ ...s }))) },
];

export const ROUTES: Route[] = [
  ...serverRoutes,
  ...cycleRoutes,
  ...folderRoutes,
  ...executionRoutes,
  ...jobRoutes,
  ...stepRoutes,
  ...attachmentRoutes,
];

/** Special 405 wording where the plain one would mislead: executions are never created with GET (pitfall §7.9). */
const METHOD_HINTS: Record<string, string> = {
  'GET /execution':
    'Method GET is not allowed on /public/rest/api/1.0/execution: executions are created with POST /public/rest/api/1.0/execution and a JSON body (issueId, projectId, versionId, cycleId).',
  // Production serves downloads (#46); the sandbox core sends text bodies only, so a binary file could not go out intact.
  'GET /attachment/:id': "Attachment downloads are not served by the sandbox: tests read the bytes with the module's attachmentBytes(id).",
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
): SandboxResponse | Promise<SandboxResponse> {
  const { store, jobs, settings } = state;
  const method = req.method.toUpperCase();
  const path = relPath.length > 1 && relPath.endsWith('/') ? relPath.slice(0, -1) : relPath;
  const api = path.startsWith(API_PREFIX + '/') ? 1 : path.startsWith(API2_PREFIX + '/') ? 2 : 0;
  if (api === 0) return errorResponse(404, `No such resource: ${req.method} ${req.rawPath}`, 404, 'not-found');
  const prefix = api === 2 ? API2_PREFIX : API_PREFIX;
  const segments = path.slice(prefix.length + 1).split('/');

  let found: { route: Route; params: Record<string, string> } | undefined;
  const otherMethods: Route[] = [];
  for (const route of ROUTES) {
    if ((route.api ?? 1) !== api) continue;
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
        hint ?? `Method ${method} is not allowed on ${prefix}${otherMethods[0].path} (allowed: ${allowed}).`,
        405,
        template,
      ),
      headers: { allow: allowed },
    };
  }

  const routeName = `${found.route.method} ${api === 2 ? '/2.0' : ''}${found.route.path}`;
  const hasBody = (method === 'POST' || method === 'PUT') && !found.route.multipart;
  if (hasBody && req.bodyParseError !== undefined) return errorResponse(400, 'Invalid Json', ERR.generic, routeName);
  const failed = (e: unknown): SandboxResponse =>
    e instanceof ApiError
      ? errorResponse(e.status, e.message, e.errorCode, routeName)
      : errorResponse(500, 'we encountered a problem during processing this request. Please try again.', ERR.internal, routeName);
  try {
    const answer = found.route.handler({ req, store, jobs, settings, sub, params: found.params, body: hasBody ? req.body : undefined });
    // Only uploads answer asynchronously (the platform parses multipart bodies with a promise).
    if (answer instanceof Promise) return answer.then((a) => ({ ...a, route: routeName }), failed);
    return { ...answer, route: routeName };
  } catch (e) {
    return failed(e);
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
