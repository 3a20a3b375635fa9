/**
 * Creating a Test Execution, whichever way it is asked for (an import without `testExecutionKey`, the multipart
 * import's Jira `info`, GraphQL `createTestExecution`): the project must be the sandbox's, a summary is required,
 * and so is every Jira field the project requires (`requiredFields` switch, §3.3). Not idempotent: every call
 * creates another issue (§8.1 rule 4).
 */
import type { Issue, XrayStore } from './store';

export interface CreateSpec {
  /** Project key (or id) as sent; undefined when not sent. */
  project: unknown;
  summary: unknown;
  description?: unknown;
  /** Every Jira field sent (custom fields included), to check required ones and to keep on the issue. */
  fields: Record<string, unknown>;
  environments: string[];
}

/** Problems of a create, in the service's words (§0.5); empty when it may proceed. */
export function creationErrors(store: XrayStore, spec: CreateSpec): string[] {
  const { projectKey, projectId } = store.fixtures;
  if (spec.project === undefined || spec.project === null || spec.project === '') return ['Must provide a project key'];
  const ref = typeof spec.project === 'string' ? spec.project : '';
  if (ref.toUpperCase() !== projectKey.toUpperCase() && ref !== projectId) {
    return [
      `Error retrieving Project from Jira with key "${typeof spec.project === 'string' ? spec.project : JSON.stringify(spec.project)}"`,
    ];
  }
  const problems: string[] = [];
  if (typeof spec.summary !== 'string' || spec.summary.trim() === '') problems.push('summary: You must specify a summary of the issue.');
  for (const f of store.settings.requiredFields) {
    const v = spec.fields[f.id];
    if (v === undefined || v === null || v === '') problems.push(`${f.id}: ${f.name} is required.`);
  }
  return problems.length > 0 ? [`Error creating Test Execution - Issue create failed! - ${problems.join(' - ')}`] : [];
}

/** The project reference of Jira `fields.project`: `{key}` or `{id}`. */
export function projectOf(fields: Record<string, unknown>): unknown {
  const p = fields.project;
  if (typeof p !== 'object' || p === null) return undefined;
  const { key, id } = p as { key?: unknown; id?: unknown };
  return key ?? (id === undefined ? undefined : String(id));
}

export function create(store: XrayStore, spec: CreateSpec): Issue {
  const { project: _p, summary: _s, description: _d, ...rest } = spec.fields;
  return store.createExecution(String(spec.summary), typeof spec.description === 'string' ? spec.description : '', rest, spec.environments);
}

export function stringList(v: unknown): string[] | null {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : null;
}
