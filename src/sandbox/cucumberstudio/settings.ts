/**
 * Behaviour switches of the CucumberStudio stand-in. Each can be given at creation (module options) and changed
 * at run time with `module.configure(patch)`; `module.settings()` reads them back. They are not fixtures: a core
 * `reset()` keeps them (like the core's fault switches) and only re-seeds the `mixed` draw.
 */

/** How the test list (and the run's test sub-tree) answers while a run's tests are being generated. */
export type GenerationAnswer = '423' | 'partial' | 'mixed';
export const GENERATION_ANSWERS: readonly GenerationAnswer[] = ['423', 'partial', 'mixed'];

/** Body shape of the module's 4xx answers (field evidence: the real service mixes them). */
export type ErrorBodyStyle = 'jsonapi' | 'devise' | 'error-key' | 'text' | 'empty';
export const ERROR_BODY_STYLES: readonly ErrorBodyStyle[] = ['jsonapi', 'devise', 'error-key', 'text', 'empty'];
/** One style for every 4xx, or per status code (`{ 404: 'empty', default: 'devise' }`). */
export type ErrorBodyStyles = ErrorBodyStyle | ({ default?: ErrorBodyStyle } & { [status: number]: ErrorBodyStyle });

export interface CucumberStudioSettings {
  /** How long a run's tests take to appear after creation or after scenarios are added. Default 300 ms. */
  generationDelayMs: number;
  /**
   * While tests are generated: `'423'` (documented, default) locks the list and the test sub-tree; `'partial'`
   * answers 200 with the tests that exist so far (they appear one by one over the delay, none at first);
   * `'mixed'` draws 423 or partial per request from a generator seeded with `seed`.
   */
  generationAnswer: GenerationAnswer;
  /**
   * How long `statuses` stays `{}` after the tests are generated and after a description update. `null` = 0 with
   * `'423'`, else `generationDelayMs`: with the production-like answers a client must not read readiness from it.
   */
  statusesLagMs: number | null;
  /** Seed of the `mixed` draw. Default 1. */
  seed: number;
  /** Body of 4xx answers. Default `'jsonapi'` (`{"errors":[{status,title,detail}]}`). */
  errorBodyStyle: ErrorBodyStyles;
  /** 401 on bad credentials answers `{"errors":["Invalid login credentials. Please try again."]}`. Default false. */
  deviseAuthErrors: boolean;
  /** PATCH on a run: 200, 201, or `'documented'` (201 for a description-only update, else 200). Default 200. */
  patchRunStatus: 200 | 201 | 'documented';
  /** PATCH on a run: `data` an object, an array of one, or `'documented'` (array when scenarios were sent). Default object. */
  patchRunData: 'object' | 'array' | 'documented';
  /** Unknown values in `step-statuses` answer 422 instead of being stored as `undefined` (spec). Default false. */
  strictStepStatuses: boolean;
  /**
   * A scenario added again to a run that holds it (create or PATCH): `'skip'` (the spec's suggestion, default)
   * or `'duplicate'` (a second set of tests; re-adding is unspecified, so a client must not depend on it).
   */
  readdScenario: 'skip' | 'duplicate';
  /**
   * How far the service's clock is from the machine's (ms, negative = behind): the `created-at` / `updated-at`
   * of results it stores. Clients that compare those with their own clock meet this in production. Default 0.
   */
  clockOffsetMs: number;
  // ---- builds and execution environments (`builds.ts`): what production does is not established ----
  /**
   * Build names within one environment: `'repeat'` (default: the vendor's publisher says names repeat) or
   * `'unique'` (the reference's wording: a second build of that name answers 422). A client finds its build by
   * listing, never by a refused create.
   */
  buildNames: 'repeat' | 'unique';
  /**
   * `POST …/execution_environments/{e}/builds` with a `name`: `'ignore'` (default: documented with `{}` only, the
   * build is called `Build N` and the client renames it by id) or `'honour'`.
   */
  environmentBuildName: 'ignore' | 'honour';
  /** A result posted into a closed build: `'refuse'` (422, default) or `'accept'`. */
  closedBuilds: 'refuse' | 'accept';
  /** Environment names of one run clash when equal `'case-insensitive'` (trimmed; default) or only `'exact'`ly. */
  environmentNames: 'case-insensitive' | 'exact';
  /**
   * Status of the run-level build routes (`…/builds`, `…/builds/current`) once a run has two environments
   * (status and body are not known: a client must treat any non-2xx so). Default 422.
   */
  runLevelBuildsStatus: 400 | 403 | 404 | 422 | 500;
  // ---- the token routes (`publication.ts`, `push.ts`): what production does is not established ----
  /**
   * `GET …/publication/{token}/test_run/{id}` while the run's tests are generated: `'partial'` (default, the
   * reference's suggestion: 200 with the tests generated so far, possibly none) or `'423'`.
   */
  publicationWhileGenerating: 'partial' | '423';
  /** The push stores a failed test's failure text as the result's `description` (`'carry'`) or not (`'drop'`, default). */
  pushFailureText: 'drop' | 'carry';
  /** A push into an `execution_environment` the run does not have: `'refuse'` (422, default) or `'create'` it. */
  pushUnknownEnvironment: 'refuse' | 'create';
  /**
   * The push answers 500 `before-applying` (nothing stored) or `after-applying` (everything stored), for the next
   * `times` pushes (every push when absent), counted from when this switch is set. Default null (no fault).
   */
  pushFault: { when: PushFaultWhen; times?: number } | null;
}

export type PushFaultWhen = 'before-applying' | 'after-applying';

export const SETTING_DEFAULTS: CucumberStudioSettings = {
  generationDelayMs: 300,
  generationAnswer: '423',
  statusesLagMs: null,
  seed: 1,
  errorBodyStyle: 'jsonapi',
  deviseAuthErrors: false,
  patchRunStatus: 200,
  patchRunData: 'object',
  strictStepStatuses: false,
  readdScenario: 'skip',
  clockOffsetMs: 0,
  buildNames: 'repeat',
  environmentBuildName: 'ignore',
  closedBuilds: 'refuse',
  environmentNames: 'case-insensitive',
  runLevelBuildsStatus: 422,
  publicationWhileGenerating: 'partial',
  pushFailureText: 'drop',
  pushUnknownEnvironment: 'refuse',
  pushFault: null,
};

type Check = (v: unknown) => boolean;
const oneOf =
  (list: readonly unknown[]): Check =>
  (v) =>
    list.includes(v);
const nonNegative: Check = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const boolean: Check = (v) => typeof v === 'boolean';

function isErrorBodyStyles(v: unknown): boolean {
  if (ERROR_BODY_STYLES.includes(v as ErrorBodyStyle)) return true;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  return Object.entries(v).every(([k, s]) => (k === 'default' || /^4\d\d$/.test(k)) && ERROR_BODY_STYLES.includes(s as ErrorBodyStyle));
}

const CHECKS: Record<keyof CucumberStudioSettings, [Check, string]> = {
  generationDelayMs: [nonNegative, 'a number of ms >= 0'],
  generationAnswer: [oneOf(GENERATION_ANSWERS), GENERATION_ANSWERS.map((a) => `'${a}'`).join(', ')],
  statusesLagMs: [(v) => v === null || nonNegative(v), 'null or a number of ms >= 0'],
  seed: [(v) => Number.isInteger(v), 'an integer'],
  errorBodyStyle: [isErrorBodyStyles, `one of ${ERROR_BODY_STYLES.join(', ')}, or {default?, <4xx>: style}`],
  deviseAuthErrors: [boolean, 'a boolean'],
  patchRunStatus: [oneOf([200, 201, 'documented']), "200, 201 or 'documented'"],
  patchRunData: [oneOf(['object', 'array', 'documented']), "'object', 'array' or 'documented'"],
  strictStepStatuses: [boolean, 'a boolean'],
  readdScenario: [oneOf(['skip', 'duplicate']), "'skip' or 'duplicate'"],
  clockOffsetMs: [(v) => typeof v === 'number' && Number.isFinite(v), 'a number of ms'],
  buildNames: [oneOf(['repeat', 'unique']), "'repeat' or 'unique'"],
  environmentBuildName: [oneOf(['ignore', 'honour']), "'ignore' or 'honour'"],
  closedBuilds: [oneOf(['refuse', 'accept']), "'refuse' or 'accept'"],
  environmentNames: [oneOf(['case-insensitive', 'exact']), "'case-insensitive' or 'exact'"],
  runLevelBuildsStatus: [oneOf([400, 403, 404, 422, 500]), '400, 403, 404, 422 or 500'],
  publicationWhileGenerating: [oneOf(['partial', '423']), "'partial' or '423'"],
  pushFailureText: [oneOf(['drop', 'carry']), "'drop' or 'carry'"],
  pushUnknownEnvironment: [oneOf(['refuse', 'create']), "'refuse' or 'create'"],
  pushFault: [isPushFault, "null or {when: 'before-applying' | 'after-applying', times?: integer >= 1}"],
};

function isPushFault(v: unknown): boolean {
  if (v === null) return true;
  if (typeof v !== 'object' || Array.isArray(v)) return false;
  const { when, times, ...rest } = v as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    (when === 'before-applying' || when === 'after-applying') &&
    (times === undefined || (Number.isInteger(times) && (times as number) >= 1))
  );
}

/** The known, defined keys of `patch`, checked; throws naming the first bad key (unknown keys are errors too). */
export function checkSettings(patch: object): Partial<CucumberStudioSettings> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const check = CHECKS[key as keyof CucumberStudioSettings];
    if (!check) throw new Error(`cucumberstudio sandbox: unknown setting "${key}" (known: ${Object.keys(CHECKS).join(', ')})`);
    if (!check[0](value)) throw new Error(`cucumberstudio sandbox: ${key} must be ${check[1]}, got ${JSON.stringify(value)}`);
    out[key] = value;
  }
  return out as Partial<CucumberStudioSettings>;
}

/** The style that applies to an answer of `status`. */
export function errorStyleFor(styles: ErrorBodyStyles, status: number): ErrorBodyStyle {
  if (typeof styles === 'string') return styles;
  return styles[status] ?? styles.default ?? 'jsonapi';
}
