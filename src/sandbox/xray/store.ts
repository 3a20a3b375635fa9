/**
 * What the Xray stand-in holds: one Jira project's issues (Tests, Test Plans, a non-Test issue, the Test
 * Executions created through the API), the runs — one per (Test, Test Execution), §8.1 rule 1 — with their
 * evidence, the tenant's statuses, and the events tests assert never happen (silent TODOs, `testInfo`).
 */
import { createHash } from 'node:crypto';
import { BUILTIN_STATUS_NAMES, type XraySettings } from './settings';

export type IssueType = 'Test' | 'Test Plan' | 'Test Execution' | 'Story';

export interface Issue {
  /** Jira issue id: a numeric string (GraphQL speaks ids, §0.3). */
  id: string;
  key: string;
  type: IssueType;
  summary: string;
  description: string;
  labels: string[];
  /** Other Jira fields sent on create (custom fields), as sent. */
  fields: Record<string, unknown>;
  /** Tests: `Manual` (step-based) or `Generic`. */
  testType?: { name: string; kind: string };
  /** Manual Tests: how many predefined steps. */
  steps?: number;
  /** Test Executions: environments (replaced on import, §8.1 rule 3) and runs by Test issue id. */
  environments?: string[];
  runs?: Map<string, Run>;
  /** Test Plans: linked Test Execution ids. */
  executions?: string[];
}

export interface Evidence {
  id: string;
  filename: string;
  mimeType: string;
  size: number;
  sha256: string;
  createdOn: string;
}

export interface Run {
  /** 24 hex digits like the schema examples. */
  id: string;
  testId: string;
  execId: string;
  status: string;
  comment: string;
  startedOn: string | null;
  finishedOn: string | null;
  defects: string[];
  evidence: Evidence[];
  /** Step statuses by position (Manual Tests). */
  steps: string[];
  lastModified: string;
}

/** Something tests assert never happens: a status stored as TODO without an error, or a `testInfo` sent. */
export interface XrayEvent {
  kind: 'silentTodo' | 'testInfo' | 'extraStepResults' | 'partialSkipped';
  testKey: string;
  execKey?: string;
  /** What was sent (the unknown status name, the skipped key, …). */
  sent?: string;
}

export interface XrayStatus {
  name: string;
  description: string;
  final: boolean;
  color: string;
}

const BUILTIN_STATUSES: XrayStatus[] = [
  { name: 'PASSED', description: 'The test run has passed', final: true, color: '#95C160' },
  { name: 'FAILED', description: 'The test run has failed', final: true, color: '#D45D52' },
  { name: 'TODO', description: 'The test run has not started', final: false, color: '#A2A6AE' },
  { name: 'EXECUTING', description: 'The test run is currently being executed', final: false, color: '#F1E069' },
  { name: 'ABORTED', description: 'The test run was aborted', final: true, color: '#111111' },
];

export interface XrayFixtures {
  projectKey: string;
  projectId: string;
  projectName: string;
  /** Tests `<KEY>-1`..`<KEY>-<testCount>`. */
  testCount: number;
  /** Test number → predefined steps (a Manual Test); the others are Generic. */
  manualTests: Record<number, number>;
  /** Test Plans numbered after the Tests. */
  testPlanCount: number;
  /** Where `self` links point (`<site>/rest/api/2/issue/<id>`). */
  jiraSite: string;
  /** Wall clock, ms since the epoch (run and evidence dates). */
  clock: () => number;
}

const ID_BASE = 10_000;

export class XrayStore {
  readonly issues = new Map<string, Issue>();
  private readonly byKey = new Map<string, Issue>();
  readonly events: XrayEvent[] = [];
  /** `evidenceAdded`: addEvidenceToTestRun calls that added files (tests tell them from files that came inline). */
  readonly counters = { imports: 0, executionsCreated: 0, tokensIssued: 0, evidenceAdded: 0 };
  /** Environment names seen by the tenant (`createdTestEnvironments` lists only new ones). */
  readonly knownEnvironments = new Set<string>();
  private nextNumber = 1;
  private runSeq = 0;
  private evidenceSeq = 0;

  constructor(
    readonly fixtures: XrayFixtures,
    readonly settings: XraySettings,
  ) {
    this.seed();
  }

  private seed(): void {
    const f = this.fixtures;
    for (let n = 1; n <= f.testCount; n++) {
      const steps = f.manualTests[n];
      this.add({
        type: 'Test',
        summary: `Test ${n}`,
        testType: steps ? { name: 'Manual', kind: 'Steps' } : { name: 'Generic', kind: 'Unstructured' },
        ...(steps ? { steps } : {}),
      });
    }
    for (let n = 1; n <= f.testPlanCount; n++) this.add({ type: 'Test Plan', summary: `Test Plan ${n}`, executions: [] });
    this.add({ type: 'Story', summary: 'A story (not a Test)' });
  }

  /** Creates an issue with the next key and id. */
  add(partial: Partial<Issue> & { type: IssueType; summary: string }): Issue {
    const n = this.nextNumber++;
    const issue: Issue = {
      description: '',
      labels: [],
      fields: {},
      ...partial,
      id: String(ID_BASE + n),
      key: `${this.fixtures.projectKey}-${n}`,
    };
    this.issues.set(issue.id, issue);
    this.byKey.set(issue.key.toUpperCase(), issue);
    return issue;
  }

  byKeyOrId(ref: string): Issue | undefined {
    return this.byKey.get(ref.trim().toUpperCase()) ?? this.issues.get(ref.trim());
  }

  ofType(ref: unknown, type: IssueType): Issue | undefined {
    if (typeof ref !== 'string') return undefined;
    const issue = this.byKeyOrId(ref);
    return issue?.type === type ? issue : undefined;
  }

  createExecution(summary: string, description: string, fields: Record<string, unknown>, environments: string[]): Issue {
    this.counters.executionsCreated++;
    const labels = Array.isArray(fields.labels) ? fields.labels.map(String) : [];
    const exec = this.add({ type: 'Test Execution', summary, description, labels, fields, environments: [], runs: new Map() });
    this.setEnvironments(exec, environments);
    return exec;
  }

  /** Replaces the execution's environments (§8.1 rule 3: an upload cannot clear them all); returns the new ones. */
  setEnvironments(exec: Issue, environments: string[]): string[] {
    const created = environments.filter((e) => !this.knownEnvironments.has(e));
    for (const e of environments) this.knownEnvironments.add(e);
    if (environments.length > 0) exec.environments = [...new Set(environments)];
    return created;
  }

  linkToPlan(plan: Issue, exec: Issue): boolean {
    if (plan.executions!.includes(exec.id)) return false;
    plan.executions!.push(exec.id);
    return true;
  }

  statuses(): XrayStatus[] {
    return [
      ...BUILTIN_STATUSES,
      ...this.settings.customStatuses.map((s) => ({
        name: s.name,
        description: s.description ?? '',
        final: s.final ?? true,
        color: s.color ?? '#777777',
      })),
    ];
  }

  /** The stored status for a name sent: an unknown name (case-sensitive, §0.3) becomes TODO, recorded (§5). */
  statusFor(sent: unknown, testKey: string, execKey: string | undefined, stepLevel = false): string {
    const known = stepLevel ? BUILTIN_STATUS_NAMES : this.statuses().map((s) => s.name);
    if (typeof sent === 'string' && known.includes(sent)) return sent;
    this.events.push({ kind: 'silentTodo', testKey, ...(execKey ? { execKey } : {}), sent: sent === undefined ? '(none)' : String(sent) });
    return 'TODO';
  }

  /** The run of (test, execution), created as TODO when absent (adding a Test to an execution does that). */
  run(exec: Issue, test: Issue): Run {
    let run = exec.runs!.get(test.id);
    if (!run) {
      this.runSeq++;
      run = {
        id: `5acc${this.runSeq.toString(16).padStart(20, '0')}`,
        testId: test.id,
        execId: exec.id,
        status: 'TODO',
        comment: '',
        startedOn: null,
        finishedOn: null,
        defects: [],
        evidence: [],
        steps: [],
        lastModified: this.isoNow(),
      };
      exec.runs!.set(test.id, run);
    }
    return run;
  }

  findRun(id: string): Run | undefined {
    for (const issue of this.issues.values()) for (const run of issue.runs?.values() ?? []) if (run.id === id) return run;
    return undefined;
  }

  evidence(filename: string, mimeType: string, data: Buffer): Evidence {
    this.evidenceSeq++;
    return {
      id: `ev-${this.evidenceSeq}`,
      filename,
      mimeType,
      size: data.length,
      sha256: createHash('sha256').update(data).digest('hex'),
      createdOn: this.isoNow(),
    };
  }

  isoNow(): string {
    return new Date(this.fixtures.clock()).toISOString();
  }

  self(issue: Issue): string {
    return `${this.fixtures.jiraSite.replace(/\/+$/, '')}/rest/api/2/issue/${issue.id}`;
  }

  count(kind: XrayEvent['kind']): number {
    return this.events.filter((e) => e.kind === kind).length;
  }

  /** Forgets everything but the seeded fixtures (settings are kept). */
  reset(): void {
    this.issues.clear();
    this.byKey.clear();
    this.events.length = 0;
    this.knownEnvironments.clear();
    Object.assign(this.counters, { imports: 0, executionsCreated: 0, tokensIssued: 0, evidenceAdded: 0 });
    this.nextNumber = 1;
    this.runSeq = 0;
    this.evidenceSeq = 0;
    this.seed();
  }
}
