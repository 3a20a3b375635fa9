import { HttpError } from '../../http/errors';
import { findOrCreate } from '../../kit/find-or-create';
import type { RequestLane } from '../../kit/lane';
import type { ContainerInfo } from '../../kit/target';
import { asArray, type CucumberStudioClient, type JsonApiResource } from './client';
import type { RunScenarios } from './linkage';

/** How a run this process created, then found a parallel shard's run ahead of it, is marked (runs cannot be deleted). */
export function duplicateNote(winnerId: string): string {
  return `Unused duplicate of test run ${winnerId} (created by a parallel shard); results are in ${winnerId}.`;
}

/**
 * A 4xx that may be about the scenario ids sent: any 422 (validation), or another client error whose
 * body names scenarios. Auth, rate limit and lock answers are never that.
 */
function mayNameUnknownIds(error: unknown): boolean {
  if (!(error instanceof HttpError)) return false;
  if (error.status === 422) return true;
  return error.status >= 400 && error.status < 500 && ![401, 403, 408, 423, 429].includes(error.status) && /scenario/i.test(error.bodyText);
}

/**
 * The run and the scenarios it is asked to hold. Mapped ids are sent as they are, all in one call; only
 * when the service refuses them are they checked one by one (`GET …/scenarios/{id}`, 404 = absent), so
 * the cost follows the number of mapped ids, never the project's size.
 */
export class RunLifecycle implements RunScenarios {
  readonly absent = new Set<number>();
  readonly requested = new Set<number>();
  private readonly exists = new Set<number>();

  constructor(
    private readonly client: CucumberStudioClient,
    private readonly lane: RequestLane,
    /** What a run this process creates says about where it comes from (CI run link, branch, commit). */
    private readonly description: string,
  ) {}

  /** Reuse an active run by exact name, else create it with the mapped ids (safe under retries and racing shards). */
  async findOrCreate(name: string, scenarioIds: readonly number[], followerWaitMs: number | undefined): Promise<ContainerInfo> {
    let found: JsonApiResource[] = [];
    let created: { id: string; sent: number[] } | undefined;
    const { value, reused } = await findOrCreate<JsonApiResource>({
      lane: this.lane,
      label: 'test_runs/create',
      find: async () => (found = await this.activeRuns(name)),
      create: async () => {
        let run: JsonApiResource | undefined;
        const sent = await this.withExisting(scenarioIds, true, async (ids) => {
          run = asArray((await this.client.createRunOnce(name, ids, this.description)).data)[0];
        });
        created = { id: String(run?.id), sent };
        return run!;
      },
      idOf: (r) => String(r.id),
      // Called right after a find whose first run is the winner. Runs cannot be deleted, and renaming is not
      // documented: say in the documented description where the results went.
      discard: async (mine) => void (await this.client.describeRun(Number(mine.id), duplicateNote(String(found[0]?.id)))),
      followerWaitMs,
    });
    // Only the run this process created is known to hold what it asked for; a reused one is learned from its list.
    if (!reused && created?.id === String(value.id)) for (const id of created.sent) this.requested.add(id);
    return { id: String(value.id), name, reused };
  }

  /** Active runs of this name, lowest id first: the same choice for every shard (and for `check`). */
  async activeRuns(name: string): Promise<JsonApiResource[]> {
    return asArray((await this.client.listActiveRuns()).data)
      .filter((r) => r.attributes?.name === name)
      .sort((a, b) => Number(a.id) - Number(b.id));
  }

  /**
   * Adds scenarios to the run; returns the ids sent. Re-adding a scenario the run holds is not specified
   * (the service may make its tests again), so after a failure that may have been applied (a 5xx, a
   * reset) nothing goes again before `stillLacking` has looked at the run: only the ids it names do.
   */
  async add(runId: number, scenarioIds: readonly number[], stillLacking: (ids: number[]) => Promise<number[]>): Promise<number[]> {
    const sent = await this.withExisting(scenarioIds, false, (ids) =>
      this.lane.retry('test_runs/patch', async (_attempt, mayHaveApplied) => {
        const todo = mayHaveApplied ? await stillLacking(ids) : ids;
        if (todo.length) await this.client.addScenariosOnce(runId, todo);
      }),
    );
    for (const id of sent) this.requested.add(id);
    return sent;
  }

  /** One `GET …/scenarios/{id}` per id not checked yet: 404 = absent; any other failure surfaces. */
  async checkExistence(ids: readonly number[]): Promise<void> {
    const todo = [...new Set(ids)].filter((id) => !this.exists.has(id) && !this.absent.has(id));
    await Promise.all(
      todo.map(async (id) => {
        try {
          await this.client.getScenario(id);
          this.exists.add(id);
        } catch (error) {
          if (!(error instanceof HttpError && error.status === 404)) throw error;
          this.absent.add(id);
        }
      }),
    );
  }

  /**
   * Sends every mapped id not known to be absent; when the service refuses them, checks them one by one
   * and sends the existing ones (an empty list only when `sendEmpty`). Returns the ids sent.
   */
  private async withExisting(ids: readonly number[], sendEmpty: boolean, send: (ids: number[]) => Promise<void>): Promise<number[]> {
    const first = [...new Set(ids)].filter((id) => !this.absent.has(id));
    if (!first.length && !sendEmpty) return [];
    try {
      await send(first);
      return first;
    } catch (error) {
      if (!first.length || !mayNameUnknownIds(error)) throw error;
      await this.checkExistence(first);
      const existing = first.filter((id) => !this.absent.has(id));
      // Every id exists: the refusal was about something else; it surfaces in the service's own words.
      if (existing.length === first.length) throw error;
      if (existing.length || sendEmpty) await send(existing);
      return existing;
    }
  }
}
