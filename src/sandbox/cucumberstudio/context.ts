/** Per-request context shared by the route handlers, and small request helpers. */
import type { SandboxRequest, SandboxResponse } from '../types';
import { errorResponse } from './jsonapi';
import type { CucumberStudioStore, Scenario, TestRun, TestSnapshot } from './store';

export interface RouteContext {
  req: SandboxRequest;
  store: CucumberStudioStore;
  /** Route template for counting, e.g. `GET /projects/:pid/test_runs/:trid`. */
  route: string;
  params: Record<string, number>;
  run?: TestRun;
  snapshot?: TestSnapshot;
  scenario?: Scenario;
}

export function locked(run: TestRun, route: string): SandboxResponse {
  return errorResponse(423, `The tests of test run ${run.id} are still being generated. Please try again later.`, route);
}

/** Comma-separated `include` names (unknown names are ignored, spec §1.4). */
export function includes(req: SandboxRequest): Set<string> {
  return new Set(
    req.query
      .getAll('include')
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter(Boolean),
  );
}

export const MISSING_ATTRIBUTES = 'Request body must be a JSON:API document: {"data":{"attributes":{...}}}';

/** `data.attributes` of a JSON:API request body, or null when the body does not have that shape. */
export function attributesOf(body: unknown): Record<string, unknown> | null {
  if (!isObject(body) || !isObject(body.data) || !isObject(body.data.attributes)) return null;
  return body.data.attributes;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A scenario id sent as a number or a numeric string (clients do both); null when it is neither. */
export function parseId(v: unknown): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  if (typeof v === 'string' && /^\s*\d{1,15}\s*$/.test(v) && Number(v) > 0) return Number(v);
  return null;
}

/** Validates scenario ids: `{ids}` (deduplicated, request order) or `{error}` naming the offending values. */
export function parseScenarioIds(store: CucumberStudioStore, value: unknown, key: string): { ids: number[] } | { error: string } {
  const list = key === 'scenario_id' ? [value] : value;
  if (!Array.isArray(list)) return { error: `${key} must be an array of scenario ids` };
  const ids: number[] = [];
  const seen = new Set<number>();
  const invalid: string[] = [];
  const unknown: number[] = [];
  for (const v of list) {
    const id = parseId(v);
    if (id === null) invalid.push(JSON.stringify(v));
    else if (!store.hasScenario(id)) unknown.push(id);
    else if (!seen.has(id)) {
      seen.add(id);
      ids.push(id);
    }
  }
  if (invalid.length > 0) return { error: `${key} must contain scenario ids (integers), got ${invalid.join(', ')}` };
  if (unknown.length > 0) {
    return {
      error: `Unknown scenario id${unknown.length > 1 ? 's' : ''} in ${key}: ${unknown.join(', ')} (project ${store.config.projectId})`,
    };
  }
  return { ids };
}
