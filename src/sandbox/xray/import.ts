/**
 * `POST /api/v2/import/execution` (Xray JSON, §4) and the shared core of the multipart route: validation first
 * (§4.7, §8.3 — any problem answers 400 and nothing is applied), then one upsert per Test into the Test Execution
 * (§8.1 rules 1-3). The Cloud answer is `{id, key, self}` only (§3.2).
 *
 * Local choices where the reference is silent (§10): two objects with one `testKey` → 400; `evidences` → 400
 * (Cloud naming is `evidence`); a `testKey` that is not a Test → 400 naming it (or, `unknownTestKey: 'partial'`,
 * skipped and counted); a test without `testKey` → 400 (the sandbox never creates Tests); `testInfo` next to a
 * `testKey` is accepted, as production does, and recorded as an event; `summary`/`description` sent with a key
 * do not change the execution; `testPlanKey` sent with a key links it too; a missing status is a silent TODO.
 */
import type { SandboxResponse } from '../types';
import { ok, xrayError } from './answers';
import { create, creationErrors, stringList, type CreateSpec } from './create';
import type { Issue, XrayStore } from './store';

const ROUTE = 'POST /import/execution';
const MAX_PARAMETERS = 20;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Target {
  exec?: Issue;
  create?: CreateSpec;
  plan?: Issue;
  environments: string[];
  tests: Array<{ test: Issue; sent: Obj }>;
  skipped: string[];
}

/** The JSON route: the body is the Xray JSON document; without a key, `info` says what to create. */
export function importJson(store: XrayStore, body: unknown, parseError: string | undefined): SandboxResponse {
  if (parseError || !isObject(body)) return xrayError(400, 'Error importing results: the request body must be an Xray JSON object', ROUTE);
  const info = isObject(body.info) ? body.info : {};
  const creating =
    body.testExecutionKey === undefined
      ? { project: info.project, summary: info.summary, description: info.description, fields: {}, environments: [] }
      : undefined;
  return runImport(store, body, creating, ROUTE);
}

/**
 * Validates and applies one import. `creating` is the Test Execution to create (the JSON route without a key, or
 * the multipart route's Jira `info`); undefined imports into `doc.testExecutionKey`.
 */
export function runImport(store: XrayStore, doc: Obj, creating: CreateSpec | undefined, route: string): SandboxResponse {
  const errors: string[] = [];
  const target = validate(store, doc, creating, errors);
  if (errors.length > 0) return xrayError(400, errors.join('; '), route);
  const t = target as Target;
  const exec = t.exec ?? create(store, { ...t.create!, environments: t.environments });
  if (t.exec) store.setEnvironments(exec, t.environments);
  if (t.plan) store.linkToPlan(t.plan, exec);
  for (const key of t.skipped) store.events.push({ kind: 'partialSkipped', testKey: key, execKey: exec.key });
  for (const { test, sent } of t.tests) applyTest(store, exec, test, sent);
  store.counters.imports++;
  return ok({ id: exec.id, key: exec.key, self: store.self(exec) }, route);
}

function validate(store: XrayStore, doc: Obj, creating: CreateSpec | undefined, errors: string[]): Target | undefined {
  const info = doc.info === undefined ? {} : doc.info;
  if (!isObject(info)) {
    errors.push('Error importing results: info must be an object');
    return undefined;
  }
  const target: Target = { environments: [], tests: [], skipped: [] };
  if (creating) {
    errors.push(...creationErrors(store, creating));
    target.create = creating;
  } else {
    target.exec = store.ofType(doc.testExecutionKey, 'Test Execution');
    if (!target.exec) errors.push(`Error importing results: Test Execution with key ${JSON.stringify(doc.testExecutionKey)} not found`);
  }
  const environments = creating?.environments.length ? creating.environments : stringList(info.testEnvironments);
  if (environments === null) errors.push('Error importing results: info.testEnvironments must be an array of names');
  else target.environments = environments;
  if (info.testPlanKey !== undefined) {
    target.plan = store.ofType(info.testPlanKey, 'Test Plan');
    if (!target.plan) errors.push(`Error importing results: Test Plan with key ${JSON.stringify(info.testPlanKey)} not found`);
  }
  const tests = doc.tests ?? [];
  if (!Array.isArray(tests)) {
    errors.push('Error importing results: tests must be an array');
    return target;
  }
  const seen = new Set<string>();
  const unknown: string[] = [];
  tests.forEach((sent: unknown, i) => {
    if (!isObject(sent)) return void errors.push(`Error importing results: tests[${i}] must be an object`);
    const label = typeof sent.testKey === 'string' ? sent.testKey : `tests[${i}]`;
    if (sent.testInfo !== undefined) store.events.push({ kind: 'testInfo', testKey: label });
    if (typeof sent.testKey !== 'string')
      return void errors.push(`Error importing results: ${label} has no testKey (the sandbox never creates Tests from testInfo)`);
    const test = store.ofType(sent.testKey, 'Test');
    if (!test) return void unknown.push(sent.testKey);
    if (seen.has(test.id)) errors.push(`Error importing results: ${sent.testKey} appears more than once in tests`);
    seen.add(test.id);
    errors.push(...testErrors(store, sent, label));
    target.tests.push({ test, sent });
  });
  if (unknown.length > 0) {
    if (store.settings.unknownTestKey === 'partial') target.skipped = unknown;
    else errors.push(`Error importing results: the following keys are not Tests of this Jira instance: ${unknown.join(', ')}`);
  }
  return target;
}

function testErrors(store: XrayStore, t: Obj, label: string): string[] {
  const e: string[] = [];
  const p = `Error importing results: ${label}`;
  if (t.evidences !== undefined) e.push(`${p}: "evidences" is not a field of Xray Cloud JSON (use "evidence")`);
  if (t.iterations !== undefined) {
    if (!Array.isArray(t.iterations) || t.iterations.length === 0) e.push(`${p}: iterations must not be empty`);
    if (t.steps !== undefined) e.push(`${p}: steps cannot be sent together with iterations`);
    for (const it of Array.isArray(t.iterations) ? t.iterations : []) {
      const params = isObject(it) ? it.parameters : undefined;
      if (params !== undefined && (!Array.isArray(params) || params.length === 0))
        e.push(`${p}: an iteration's parameters must not be empty`);
      if (Array.isArray(params) && params.length > MAX_PARAMETERS) e.push(`${p}: an iteration has more than ${MAX_PARAMETERS} parameters`);
    }
  }
  if (t.examples !== undefined && (!Array.isArray(t.examples) || t.examples.length === 0)) e.push(`${p}: examples must not be empty`);
  if (t.steps !== undefined && (!Array.isArray(t.steps) || !t.steps.every(isObject))) e.push(`${p}: steps must be an array of objects`);
  const files = [t.evidence, ...(Array.isArray(t.steps) ? t.steps.map((s: unknown) => (isObject(s) ? s.evidence : undefined)) : [])];
  for (const list of files) {
    if (list === undefined) continue;
    if (!Array.isArray(list)) e.push(`${p}: evidence must be an array`);
    else {
      for (const f of list) {
        const bad = evidenceProblem(f);
        if (bad) e.push(`${p}: ${bad}`);
      }
      if (list.length > 0 && store.settings.evidenceStorageFull)
        e.push(`${p}: the evidence storage limit of this Xray instance has been reached`);
    }
  }
  for (const k of ['comment', 'start', 'finish'] as const) {
    if (t[k] !== undefined && typeof t[k] !== 'string') e.push(`${p}: ${k} must be a string`);
  }
  if (t.defects !== undefined && stringList(t.defects) === null) e.push(`${p}: defects must be an array of issue keys`);
  return e;
}

/** Why an import's evidence object is refused (`data` base64, `filename`, `contentType`, §4.4), or null. */
function evidenceProblem(f: unknown): string | null {
  if (!isObject(f)) return 'an evidence item must be an object';
  if (typeof f.filename !== 'string' || f.filename === '') return 'evidence needs a filename';
  if (typeof f.contentType !== 'string') return `evidence ${f.filename} needs a contentType`;
  if (typeof f.data !== 'string' || !isBase64(f.data)) return `evidence ${f.filename}: data must be base64`;
  return null;
}

export function isBase64(s: string): boolean {
  return /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/.test(s);
}

/** One Test's upsert: the run of (test, execution) is overwritten (§8.1 rule 2). */
function applyTest(store: XrayStore, exec: Issue, test: Issue, sent: Obj): void {
  const run = store.run(exec, test);
  run.status = store.statusFor(sent.status, test.key, exec.key);
  run.comment = typeof sent.comment === 'string' ? sent.comment : '';
  run.startedOn = typeof sent.start === 'string' ? sent.start : null;
  run.finishedOn = typeof sent.finish === 'string' ? sent.finish : null;
  run.defects = stringList(sent.defects) ?? [];
  const steps = Array.isArray(sent.steps) ? (sent.steps as Obj[]) : [];
  // Steps are positional and only meaningful for Manual Tests (§4.5): extra ones are stored and flagged.
  if (steps.length > (test.steps ?? 0))
    store.events.push({ kind: 'extraStepResults', testKey: test.key, execKey: exec.key, sent: String(steps.length) });
  run.steps = steps.map((s) => store.statusFor(s.status, test.key, exec.key, true));
  if (store.settings.evidenceOnReimport === 'drop') run.evidence = [];
  for (const list of [sent.evidence, ...steps.map((s) => s.evidence)]) {
    for (const f of (Array.isArray(list) ? list : []) as Obj[]) {
      run.evidence.push(store.evidence(String(f.filename), String(f.contentType), Buffer.from(String(f.data), 'base64')));
    }
  }
  run.lastModified = store.isoNow();
}
