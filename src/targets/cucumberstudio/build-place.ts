import { HttpError } from '../../http/errors';
import type { RequestLane } from '../../kit/lane';
import { asArray, type CucumberStudioClient, type JsonApiResource } from './client';

/** Every run has this environment from the start; merge mode posts every result into it. */
export const DEFAULT_ENVIRONMENT = 'Default';

/** The longest environment name the service takes (field evidence: the vendor's publisher checks it). */
export const MAX_ENVIRONMENT_NAME = 255;

/**
 * The execution environment of a Playwright project (split mode): named as the project. An unnamed project (or
 * merge mode, `undefined`) is the run's `Default`: every run has it, so nothing is created, and a config whose
 * only project has no name looks the same in both modes.
 */
export function environmentFor(place: string | undefined): string {
  return place === undefined || place.trim() === '' ? DEFAULT_ENVIRONMENT : place.trim();
}

/** Where this process's results go in one execution environment of the run: the CI build's build there. */
export interface BuildPlace {
  environmentId: string;
  environmentName: string;
  buildId: string;
  /** The CI build (RunInfo.buildId): the build's name. */
  buildName: string;
}

/** Environment names are unique in a run; compared trimmed and case-insensitively (a server may apply either rule). */
const sameEnvironment = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * Finds or opens the CI build's build in an execution environment, once per environment name, and keeps the ids.
 * Field evidence (spec README "Folders, builds, environments"): build names repeat, so the build is found by
 * listing the environment's builds and matching the name (lowest id, open ones only: a closed build may refuse
 * results); a create may ignore the name (rename by id); an ambiguous create is followed by a list before another.
 * Environment routes only: the run-level ones fail once a run has two environments. A build is never closed here:
 * other processes of the CI build may still post into it.
 */
export class EnvironmentBuilds {
  private readonly places = new Map<string, Promise<BuildPlace>>();

  constructor(
    private readonly client: CucumberStudioClient,
    private readonly lane: RequestLane,
    /** The CI build this publish belongs to. */
    readonly buildName: string,
  ) {}

  /** The place for `environmentName` (found or opened on first use; a failure is forgotten, the next call tries again). */
  place(runId: number, environmentName = DEFAULT_ENVIRONMENT): Promise<BuildPlace> {
    const key = `${runId}\n${environmentName.trim().toLowerCase()}`;
    let found = this.places.get(key);
    if (!found) {
      found = this.findOrOpen(runId, environmentName);
      this.places.set(key, found);
      found.catch(() => this.places.delete(key));
    }
    return found;
  }

  /** The build's id in `environmentName`, or why it could not be found or opened (one line). */
  async placeOrWhy(runId: number, environmentName = DEFAULT_ENVIRONMENT): Promise<string | { why: string }> {
    try {
      return (await this.place(runId, environmentName)).buildId;
    } catch (error) {
      const where = sameEnvironment(environmentName, DEFAULT_ENVIRONMENT) ? '' : ` (execution environment "${environmentName}")`;
      return {
        why: `the build "${this.buildName}" of test run ${runId}${where} could not be found or opened: ${(error as Error).message}`,
      };
    }
  }

  /** Where results go, for the dry run (found or opened, never closed). */
  describe(environmentName = DEFAULT_ENVIRONMENT): string {
    const environment = sameEnvironment(environmentName, DEFAULT_ENVIRONMENT) ? '' : ' (found by name, or created)';
    return `build "${this.buildName}" of execution environment "${environmentName}"${environment} (found by name, or opened)`;
  }

  /** The places found so far (the end reconciles each). */
  async known(): Promise<BuildPlace[]> {
    const settled = await Promise.allSettled(this.places.values());
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }

  /**
   * The environment's build of this CI build as it stands now (one list): processes that opened it at the same
   * moment each made one, and every one of them settles on the lowest id. Undefined: none open (closed meanwhile).
   */
  async current(runId: number, place: BuildPlace): Promise<string | undefined> {
    return this.ours(runId, place.environmentId);
  }

  private async findOrOpen(runId: number, environmentName: string): Promise<BuildPlace> {
    const environmentId = await this.environment(runId, environmentName);
    const place = (buildId: string): BuildPlace => ({ environmentId, environmentName, buildId, buildName: this.buildName });
    const before = await this.listed(runId, environmentId);
    const found = this.lowestOurs(before);
    if (found) return place(found);
    let opened: string | undefined;
    await this.lane.retry(
      'builds/create',
      async (_attempt, mayHaveApplied) => {
        // A create that may have been applied (500 after applying, reset): look before opening another. A server
        // that ignores the name made a default-named one (`Build N`) that appeared since the first listing: ours.
        if (mayHaveApplied) {
          const now = await this.listed(runId, environmentId);
          const known = new Set(before.map((b) => b.id));
          const appeared = now.filter((b) => !known.has(b.id) && isOpen(b) && DEFAULT_BUILD_NAME.test(String(b.attributes?.name)));
          opened = this.lowestOurs(now) ?? appeared.map((b) => b.id).sort(byId)[0];
          if (opened)
            return this.named(
              runId,
              now.find((b) => b.id === opened)!,
            );
        }
        const doc = await this.client.createBuildOnce(runId, environmentId, this.buildName);
        const build = asArray(doc.data)[0];
        if (build?.id === undefined) throw new Error(`CucumberStudio answered the creation of a build with no build id`);
        opened = String(build.id);
        await this.named(runId, build);
      },
      `build "${this.buildName}" in test run ${runId}`,
    );
    // A concurrent process may have opened its own at the same moment: both settle on the lowest id.
    return place(this.lowestOurs(await this.listed(runId, environmentId)) ?? opened!);
  }

  /** The environment route is documented without `name`: a server may call the build `Build N` (rename by id). */
  private async named(runId: number, build: JsonApiResource): Promise<void> {
    if (build.attributes?.name !== this.buildName) await this.client.renameBuild(runId, String(build.id), this.buildName);
  }

  private async listed(runId: number, environmentId: string): Promise<JsonApiResource[]> {
    return asArray((await this.client.listBuilds(runId, environmentId)).data);
  }

  /** The lowest-id open build named after the CI build. */
  private lowestOurs(builds: readonly JsonApiResource[]): string | undefined {
    return builds
      .filter((b) => b.attributes?.name === this.buildName && isOpen(b))
      .map((b) => b.id)
      .sort(byId)[0];
  }

  /** The lowest-id open build of the environment named after the CI build (one list). */
  private async ours(runId: number, environmentId: string): Promise<string | undefined> {
    return this.lowestOurs(await this.listed(runId, environmentId));
  }

  /**
   * The run's environment named `name`, created when missing (one list, maybe one create). Names are unique in a
   * run: a 4xx from the create is most likely another process of the CI build (another project's job, a shard)
   * that made it first, so the run is listed again and that one is used; if none matches, the service's words.
   */
  private async environment(runId: number, name: string): Promise<string> {
    const found = await this.environmentNamed(runId, name);
    if (found) return found;
    if (name.length > MAX_ENVIRONMENT_NAME)
      throw new Error(
        `the Playwright project "${name.slice(0, 40)}…" has a name of ${name.length} characters; a CucumberStudio execution environment takes at most ${MAX_ENVIRONMENT_NAME} (rename the project, or projects: 'merge' / PW_TMS_PROJECTS=merge)`,
      );
    let made: string | undefined;
    await this.lane.retry(
      'environments/create',
      async (_attempt, mayHaveApplied) => {
        // A create that may have been applied (500 after applying, reset): look before making another.
        if (mayHaveApplied && (made = await this.environmentNamed(runId, name))) return;
        try {
          const id = asArray((await this.client.createEnvironmentOnce(runId, name)).data)[0]?.id;
          if (id === undefined) throw new Error(`CucumberStudio answered the creation of an execution environment with no id`);
          made = String(id);
        } catch (error) {
          if (!isRefusal(error)) throw error;
          made = await this.environmentNamed(runId, name);
          if (!made) throw error;
        }
      },
      `execution environment "${name}" in test run ${runId}`,
    );
    return made!;
  }

  private async environmentNamed(runId: number, name: string): Promise<string | undefined> {
    const list = asArray((await this.client.listEnvironments(runId)).data);
    const found = list.find((e) => sameEnvironment(String(e.attributes?.name ?? ''), name));
    return found && String(found.id);
  }
}

/** A 4xx that is a refusal (not a wait: 408 and 429 are the lane's to retry). */
function isRefusal(error: unknown): boolean {
  return error instanceof HttpError && error.status >= 400 && error.status < 500 && ![408, 429].includes(error.status);
}

/** What a server that ignores the create's name calls a build (the sandbox's `environmentBuildName: 'ignore'`). */
const DEFAULT_BUILD_NAME = /^Build \d+$/;
const byId = (a: string, b: string) => Number(a) - Number(b);

/** Open = not closed: `is-running` true, or no `closed-at` (the create samples echo snake_case keys, §4.3). */
function isOpen(build: JsonApiResource): boolean {
  const a = build.attributes ?? {};
  const running = a['is-running'] ?? a.is_running;
  if (typeof running === 'boolean') return running;
  return (a['closed-at'] ?? a.closed_at ?? null) === null;
}
