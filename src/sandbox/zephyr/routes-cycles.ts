import { ApiError, ERR, bodyObject, invalid, missing, optionalJiraId, optionalText, requiredJiraId } from './http';
import { ok, type Route, type RouteContext } from './context';
import { AD_HOC_ID, type CycleFields, type Cycle } from './store';
import { cycleView } from './views';

/** projectId + versionId from the query string, both required (151 when missing). */
export function queryProjectVersion(c: RouteContext): { projectId: number; versionId: number } {
  const projectId = requiredJiraId(c.req.query.get('projectId'), 'projectId');
  const versionId = requiredJiraId(c.req.query.get('versionId'), 'versionId');
  return { projectId, versionId };
}

function requiredName(value: unknown): string {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) throw missing('name');
  if (typeof value !== 'string') throw invalid('name', value);
  return value;
}

/** Dates are echoed as stored: epoch-ms numbers or `d/MMM/yy` strings (§3.5). */
function dateField(value: unknown, name: string): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' || typeof value === 'string') return value;
  throw invalid(name, value);
}

function searchCycles(c: RouteContext) {
  const { projectId, versionId } = queryProjectVersion(c);
  c.store.checkProjectVersion(projectId, versionId);
  const expand = c.req.query.get('expand');
  return ok(c.store.cyclesOf(projectId, versionId).map((cycle) => cycleView(c.store, cycle, expand)));
}

function createCycle(c: RouteContext) {
  const body = bodyObject(c.body);
  const name = requiredName(body.name);
  const projectId = requiredJiraId(body.projectId, 'projectId');
  const versionId = requiredJiraId(body.versionId, 'versionId');
  c.store.checkProjectVersion(projectId, versionId);
  const clonedCycleId = c.req.query.get('clonedCycleId') ?? '';
  // Resolve the clone source before creating anything, so an unknown source leaves no cycle behind.
  const source =
    clonedCycleId !== ''
      ? c.store.cycle(
          clonedCycleId,
          clonedCycleId === AD_HOC_ID ? projectId : undefined,
          clonedCycleId === AD_HOC_ID ? versionId : undefined,
        )
      : undefined;
  const fields: CycleFields = {
    name,
    description: optionalText(body.description, 'description') ?? '',
    build: optionalText(body.build, 'build') ?? '',
    environment: optionalText(body.environment, 'environment') ?? '',
    startDate: dateField(body.startDate, 'startDate') ?? '',
    endDate: dateField(body.endDate, 'endDate') ?? '',
    sprintId: optionalJiraId(body.sprintId, 'sprintId') ?? null,
  };
  const cycle = c.store.createCycle(projectId, versionId, fields, c.sub);
  if (source) {
    for (const e of source.executions) {
      const issue = c.store.issueById(e.issueId);
      if (issue) c.store.addExecution(cycle, issue, c.sub, 'clone');
    }
  }
  return ok(cycleView(c.store, cycle, c.req.query.get('expand')));
}

function getCycle(c: RouteContext) {
  const { projectId, versionId } = queryProjectVersion(c);
  const cycle = c.store.cycle(c.params.id, projectId, versionId);
  return ok(cycleView(c.store, cycle, c.req.query.get('expand')));
}

function updateCycle(c: RouteContext) {
  const body = bodyObject(c.body);
  const projectId = optionalJiraId(body.projectId, 'projectId') ?? optionalJiraId(c.req.query.get('projectId'), 'projectId');
  const versionId = optionalJiraId(body.versionId, 'versionId') ?? optionalJiraId(c.req.query.get('versionId'), 'versionId');
  const cycle = c.store.cycle(c.params.id, projectId, versionId);
  if (cycle.adHoc) throw new ApiError(400, 'The Ad hoc cycle cannot be edited.', ERR.invalid);
  applyCycleUpdate(cycle, body);
  cycle.modifiedByAccountId = c.sub;
  return ok(cycleView(c.store, cycle, c.req.query.get('expand')));
}

function applyCycleUpdate(cycle: Cycle, body: Record<string, unknown>): void {
  if (body.name !== undefined) cycle.name = requiredName(body.name);
  const text = (k: 'description' | 'build' | 'environment') => {
    const v = optionalText(body[k], k);
    if (v !== undefined) cycle[k] = v;
  };
  text('description');
  text('build');
  text('environment');
  const start = dateField(body.startDate, 'startDate');
  if (start !== undefined) cycle.startDate = start;
  const end = dateField(body.endDate, 'endDate');
  if (end !== undefined) cycle.endDate = end;
  const sprint = optionalJiraId(body.sprintId, 'sprintId');
  if (sprint !== undefined) cycle.sprintId = sprint;
}

function deleteCycle(c: RouteContext) {
  const { projectId, versionId } = queryProjectVersion(c);
  const cycle = c.store.cycle(c.params.id, projectId, versionId);
  c.store.deleteCycle(cycle);
  return ok({ message: `Cycle ${cycle.name} deleted successfully.` });
}

export const cycleRoutes: Route[] = [
  { method: 'GET', path: '/cycles/search', handler: searchCycles },
  { method: 'POST', path: '/cycle', handler: createCycle },
  { method: 'GET', path: '/cycle/:id', handler: getCycle },
  { method: 'PUT', path: '/cycle/:id', handler: updateCycle },
  { method: 'DELETE', path: '/cycle/:id', handler: deleteCycle },
];
