import { randomUUID } from 'node:crypto';
import { EvidenceStore } from './evidence';
import { ApiError, ERR, notFound } from './http';
import type { StepCatalog } from './steps';
import type { Execution, Folder, Issue, StatusDef } from './entities';

export type { Execution, Folder, Issue, StatusDef } from './entities';

export const BUILTIN_STATUSES: readonly StatusDef[] = [
  { id: -1, name: 'UNEXECUTED', description: 'The test has not yet been executed.', color: '#A0A0A0', type: 0 },
  { id: 1, name: 'PASS', description: 'Test was executed and passed successfully.', color: '#75B000', type: 0 },
  { id: 2, name: 'FAIL', description: 'Test was executed and failed.', color: '#CC3300', type: 0 },
  { id: 3, name: 'WIP', description: 'Test execution is a work-in-progress.', color: '#F2B000', type: 0 },
  { id: 4, name: 'BLOCKED', description: 'The test execution of this test was blocked for some reason.', color: '#6693B0', type: 0 },
];

export const UNEXECUTED = -1;
export const AD_HOC_ID = '-1';
export const AD_HOC_NAME = 'Ad hoc';

export interface Cycle {
  id: string;
  name: string;
  projectId: number;
  versionId: number;
  description: string;
  build: string;
  environment: string;
  startDate: unknown;
  endDate: unknown;
  sprintId: number | null;
  createdByAccountId: string;
  modifiedByAccountId: string;
  creationDate: number;
  adHoc: boolean;
  nextOrderId: number;
  /** Kept in orderId order. */
  executions: Execution[];
  /** Same executions by issueId (a test is in a cycle at most once). */
  byIssue: Map<number, Execution>;
}

export interface StoreConfig {
  projectId: number;
  projectKey: string;
  projectName: string;
  issueCount: number;
  versions: { id: number; name: string }[];
  statuses: StatusDef[];
  /** Test steps per issue; each new execution gets one step result per step. */
  steps: StepCatalog;
}

export type CycleFields = Pick<Cycle, 'name' | 'description' | 'build' | 'environment' | 'startDate' | 'endDate' | 'sprintId'>;

/** Everything the Zephyr stand-in holds. Issues are virtual: `<KEY>-n` has id 100000 + n. */
export class ZephyrStore {
  readonly cycles = new Map<string, Cycle>();
  /** Ad hoc pseudo-cycles by `projectId:versionId`, created on first use. */
  readonly adHoc = new Map<string, Cycle>();
  readonly executions = new Map<string, Execution>();
  /** Folders of every cycle, in creation order (`folders.ts`). */
  readonly folders = new Map<string, Folder>();
  /** Step results and attachments of the executions. */
  readonly evidence: EvidenceStore;

  constructor(readonly cfg: StoreConfig) {
    this.evidence = new EvidenceStore(cfg.steps);
  }

  reset(): void {
    this.cycles.clear();
    this.adHoc.clear();
    this.executions.clear();
    this.folders.clear();
    this.evidence.reset();
  }

  // ---- fixtures -------------------------------------------------------------------------------

  status(id: number): StatusDef | undefined {
    return this.cfg.statuses.find((s) => s.id === id);
  }

  versionName(versionId: number): string {
    return this.cfg.versions.find((v) => v.id === versionId)?.name ?? String(versionId);
  }

  /** 400 (160) unless the project exists and the version belongs to it. */
  checkProjectVersion(projectId: number, versionId?: number): void {
    if (projectId !== this.cfg.projectId) throw notFound(`Project ${projectId} does not exist or you do not have permission to access it.`);
    if (versionId !== undefined && !this.cfg.versions.some((v) => v.id === versionId)) {
      throw notFound(`Version ${versionId} does not exist in project ${projectId}.`);
    }
  }

  issueById(id: number): Issue | undefined {
    const n = id - 100000;
    return n >= 1 && n <= this.cfg.issueCount ? this.issue(n) : undefined;
  }

  issueByKey(key: string): Issue | undefined {
    const m = /^([A-Z][A-Z0-9_]*)-(\d{1,9})$/.exec(key.trim());
    if (!m || m[1] !== this.cfg.projectKey) return undefined;
    const n = Number(m[2]);
    return n >= 1 && n <= this.cfg.issueCount && String(n) === m[2] ? this.issue(n) : undefined;
  }

  private issue(n: number): Issue {
    return { id: 100000 + n, key: `${this.cfg.projectKey}-${n}`, summary: `Test ${n}` };
  }

  // ---- cycles ---------------------------------------------------------------------------------

  createCycle(projectId: number, versionId: number, fields: CycleFields, sub: string): Cycle {
    const now = Date.now();
    const cycle: Cycle = {
      id: randomUUID(),
      projectId,
      versionId,
      ...fields,
      createdByAccountId: sub,
      modifiedByAccountId: sub,
      creationDate: now,
      adHoc: false,
      nextOrderId: 1,
      executions: [],
      byIssue: new Map(),
    };
    this.cycles.set(cycle.id, cycle);
    return cycle;
  }

  /** Resolve a cycle id (`"-1"` → the Ad hoc pseudo-cycle of that project+version); 400 (160) when unknown. */
  cycle(id: string, projectId?: number, versionId?: number): Cycle {
    if (id === AD_HOC_ID) {
      if (projectId === undefined || versionId === undefined) throw notFound('The Ad hoc cycle (-1) needs projectId and versionId.');
      this.checkProjectVersion(projectId, versionId);
      return this.adHocCycle(projectId, versionId);
    }
    const cycle = this.cycles.get(id);
    if (!cycle) throw notFound(`Cycle ${id} does not exist.`);
    if ((projectId !== undefined && projectId !== cycle.projectId) || (versionId !== undefined && versionId !== cycle.versionId)) {
      throw notFound(`Cycle ${id} does not exist in project ${projectId ?? cycle.projectId} version ${versionId ?? cycle.versionId}.`);
    }
    return cycle;
  }

  adHocCycle(projectId: number, versionId: number): Cycle {
    const key = `${projectId}:${versionId}`;
    let cycle = this.adHoc.get(key);
    if (!cycle) {
      cycle = {
        id: AD_HOC_ID,
        name: AD_HOC_NAME,
        projectId,
        versionId,
        description: '',
        build: '',
        environment: '',
        startDate: '',
        endDate: '',
        sprintId: null,
        createdByAccountId: '',
        modifiedByAccountId: '',
        creationDate: 0,
        adHoc: true,
        nextOrderId: 1,
        executions: [],
        byIssue: new Map(),
      };
      this.adHoc.set(key, cycle);
    }
    return cycle;
  }

  cyclesOf(projectId: number, versionId: number): Cycle[] {
    return [
      this.adHocCycle(projectId, versionId),
      ...[...this.cycles.values()].filter((c) => c.projectId === projectId && c.versionId === versionId),
    ];
  }

  deleteCycle(cycle: Cycle): void {
    if (cycle.adHoc) throw new ApiError(400, 'The Ad hoc cycle cannot be deleted.', ERR.invalid);
    // The cycle goes with its folders and their executions.
    const folders = [...this.folders.values()].filter((f) => f.cycleId === cycle.id);
    for (const e of [...cycle.executions, ...folders.flatMap((f) => f.executions)]) {
      this.executions.delete(e.id);
      this.evidence.forget(e.id);
    }
    for (const f of folders) this.folders.delete(f.id);
    this.cycles.delete(cycle.id);
  }

  // ---- executions -----------------------------------------------------------------------------

  executionOf(cycle: Cycle, issueId: number): Execution | undefined {
    return cycle.byIssue.get(issueId);
  }

  /** A new UNEXECUTED execution in the cycle's root, or in `folder` (a folder of that cycle) when given. */
  addExecution(cycle: Cycle, issue: Issue, sub: string, via: Execution['createdVia'], folder?: Folder): Execution {
    const now = Date.now();
    const holder = folder ?? cycle;
    const execution: Execution = {
      id: randomUUID(),
      issueId: issue.id,
      issueKey: issue.key,
      projectId: cycle.projectId,
      versionId: cycle.versionId,
      cycleId: cycle.id,
      folderId: folder?.id ?? null,
      orderId: holder.nextOrderId++,
      statusId: UNEXECUTED,
      comment: '',
      executedOn: null,
      executedByAccountId: null,
      createdByAccountId: sub,
      modifiedByAccountId: sub,
      creationDate: now,
      statusChanges: 0,
      statusHistory: [],
      createdVia: via,
    };
    holder.executions.push(execution);
    holder.byIssue.set(execution.issueId, execution);
    this.executions.set(execution.id, execution);
    this.evidence.executionAdded(execution, issue, sub);
    return execution;
  }

  /** Set a status: ≠ -1 stamps executedOn/executedBy with now/sub, -1 clears them. */
  setStatus(execution: Execution, statusId: number, sub: string, countChange = true): void {
    execution.statusId = statusId;
    if (countChange) {
      execution.statusChanges++;
      execution.statusHistory.push(statusId);
    }
    execution.modifiedByAccountId = sub;
    if (statusId === UNEXECUTED) {
      execution.executedOn = null;
      execution.executedByAccountId = null;
    } else {
      execution.executedOn = Date.now();
      execution.executedByAccountId = sub;
    }
  }

  deleteExecution(execution: Execution): void {
    this.executions.delete(execution.id);
    this.evidence.forget(execution.id);
    const holder = this.holderOf(execution);
    if (holder) {
      holder.executions = holder.executions.filter((e) => e.id !== execution.id);
      holder.byIssue.delete(execution.issueId);
    }
  }

  /** The list an execution sits in: its folder, else its cycle's root. */
  holderOf(execution: Execution): Cycle | Folder | undefined {
    return execution.folderId !== null ? this.folders.get(execution.folderId) : this.containerOf(execution);
  }

  /** The cycle's root executions and those of its folders: what the cycle's counts include (§3.5). */
  allExecutionsOf(cycle: Cycle): Execution[] {
    const inFolders = cycle.adHoc ? [] : [...this.folders.values()].filter((f) => f.cycleId === cycle.id).flatMap((f) => f.executions);
    return [...cycle.executions, ...inFolders];
  }

  containerOf(execution: Execution): Cycle | undefined {
    return execution.cycleId === AD_HOC_ID
      ? this.adHoc.get(`${execution.projectId}:${execution.versionId}`)
      : this.cycles.get(execution.cycleId);
  }

  /** Cycle status over root and folder executions: 'not executed' (nothing run, incl. empty), 'done' (≥1 execution, all run), else 'in progress'. */
  cycleStatus(cycle: Cycle): 'not executed' | 'in progress' | 'done' {
    const all = this.allExecutionsOf(cycle);
    const executed = all.filter((e) => e.statusId !== UNEXECUTED).length;
    if (executed === 0) return 'not executed';
    return executed === all.length ? 'done' : 'in progress';
  }
}
