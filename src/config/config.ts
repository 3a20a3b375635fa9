/**
 * Options + env vars -> one validated, read-only config. Options override env vars; each problem is one
 * line naming the option and the env var. A target with bad settings is disabled (and reported), never
 * thrown. What each service reads is its definition's business; this file only iterates them.
 */
import * as path from 'node:path';
import {
  bool,
  checkUnknownKeys,
  choice,
  int,
  isPlainObject,
  Problems,
  readField,
  readFields,
  str,
  type Env,
  type Field,
  type FieldsOf,
} from '../kit/config-fields';
import type { ContainerChoice, ResolvedTarget, TargetDefinition } from '../kit/target';
import { buildLabel, detectCi, runDescription } from './ci-metadata';
import type { EvidencePolicy, GeneralOptions, RunInfo } from '../shared/options';
import { defaultRunName } from './run-name';

/**
 * Not under `test-results`: Playwright empties its output folder when a run starts, and a journal kept
 * there for replay would be gone with the next run.
 */
export const DEFAULT_OUTBOX_DIR = 'tms-outbox';

/** The options that are not about one service: one row each (`GeneralOptions` has the docs). */
export const GENERAL_FIELDS = {
  outboxDir: str('PW_TMS_OUTBOX_DIR', { default: DEFAULT_OUTBOX_DIR }),
  failOnPublishError: bool('PW_TMS_FAIL_ON_ERROR', false),
  dryRun: bool('PW_TMS_DRY_RUN', false, { value: true, because: 'taken as true: a dry run' }),
  summaryFile: str('PW_TMS_SUMMARY_FILE', { default: 'test-results/tms-summary.json' }),
  debug: bool('PW_TMS_DEBUG', false),
  publishTimeout: {
    env: 'PW_TMS_PUBLISH_TIMEOUT',
    default: 600_000,
    /** ms from whole seconds; `0` or `off`: no limit. Any size goes: the timers clamp what Node cannot keep (2³¹−1 ms). */
    read(value, problem) {
      const text = String(value).trim().toLowerCase();
      const seconds = text === 'off' ? 0 : typeof value === 'number' ? value : /^\d+$/.test(text) ? Number(text) : NaN;
      if (Number.isSafeInteger(seconds) && seconds >= 0) return seconds === 0 ? Infinity : seconds * 1000;
      problem(`expected a whole number of seconds (0 or off: no limit), got ${JSON.stringify(value)}; 600 is used`);
    },
  } satisfies Field<number>,
  requestTimeout: int('PW_TMS_REQUEST_TIMEOUT', 1, { default: 30 }),
  attachments: choice('PW_TMS_ATTACHMENTS', ['failed', 'all', 'none'] as const, 'failed'),
  attachmentMaxBytes: int('PW_TMS_ATTACHMENT_MAX_BYTES', 1, { default: 10 * 1024 * 1024 }),
  projects: choice('PW_TMS_PROJECTS', ['merge', 'split'] as const, 'merge'),
  build: str('PW_TMS_BUILD'),
  environment: str('PW_TMS_ENVIRONMENT'),
  description: str('PW_TMS_DESCRIPTION'),
} satisfies FieldsOf<GeneralOptions>;

export interface ResolvedConfig {
  /** Enabled targets with valid settings, in registry order. */
  readonly targets: readonly ResolvedTarget[];
  /** Targets whose credentials are present but whose settings are invalid: journaled, not sent. */
  readonly invalid: readonly TargetDefinition[];
  /**
   * The cycle / run each invalid target was to publish into, as far as it resolved: journaled, so that a
   * replay once the settings are fixed lands there, not in a container named after the replay.
   */
  readonly invalidContainers: Readonly<Record<string, { name: string; id?: string }>>;
  /** Targets switched off (`zephyr: false`, `ZEPHYR_ENABLED=false`): never sent to, whatever credentials the environment holds. */
  readonly off: readonly TargetDefinition[];
  /** Every registered target (for messages such as "no target enabled"). */
  readonly definitions: readonly TargetDefinition[];
  readonly outboxDir: string;
  readonly summaryFile: string;
  readonly failOnPublishError: boolean;
  readonly dryRun: boolean;
  readonly debug: boolean;
  /** How long (ms) the end of the run may take at most; Infinity: no limit (`0` / `off`). */
  readonly publishTimeoutMs: number;
  /** How long (ms) a request may go without a byte from the service before it counts as no answer. */
  readonly requestTimeoutMs: number;
  readonly evidence: EvidencePolicy;
  /** `split`: each Playwright project's results apart (TestRecord.place). */
  readonly projects: 'merge' | 'split';
  readonly runInfo: RunInfo;
  /** One line per problem, each naming the option and the env var. */
  readonly problems: readonly string[];
  /** Secret values to redact from anything printed or written. */
  readonly secrets: readonly string[];
}

/** What is decided outside the user's options, per target id. */
export interface TargetOverride {
  /** Option values that win over the user's (replay: the journal's project, version, …). */
  settings?: Record<string, unknown>;
  container?: ContainerChoice;
}

/** Where earlier versions kept it: `replay` without a folder still looks there. */
export const FORMER_OUTBOX_DIR = 'test-results/tms-outbox';

export interface ResolveInput {
  definitions: readonly TargetDefinition[];
  options?: unknown;
  env?: Env;
  /** Anchors relative paths: Playwright's config dir when known, else the working directory. */
  rootDir?: string;
  now?: Date;
  overrides?: Record<string, TargetOverride>;
  /** Resolve only these targets (replay: the journal's pending ones; `cycle create`: one). */
  only?: readonly string[];
  /** Playwright project names (the default environment of a created cycle). */
  projects?: readonly string[];
}

/** Where Playwright's config is (it adds `configDir` to every reporter's options): relative paths are anchored there. */
export function configDirOf(options: unknown): string | undefined {
  const dir = isPlainObject(options) ? options.configDir : undefined;
  return typeof dir === 'string' ? dir : undefined;
}

export function resolveConfig(input: ResolveInput): ResolvedConfig {
  const { definitions, env = process.env, rootDir = process.cwd(), now = new Date() } = input;
  const p = new Problems();
  const options = input.options;
  let opts: Record<string, unknown> = isPlainObject(options) ? options : {};
  const example = `{ ${definitions[0]?.optionsKey ?? 'target'}: { … } }`;
  if (options !== undefined && options !== null && !isPlainObject(options))
    p.add('reporter options', undefined, `expected an object such as ${example}; ignored`);
  // Playwright spreads a string given as options into {0: 'z', 1: 'e', …} (plus configDir).
  const own = Object.keys(opts).filter((k) => k !== 'configDir' && !k.startsWith('_'));
  if (own.length && own.every((k) => /^\d+$/.test(k))) {
    p.add('reporter options', undefined, `expected an object such as ${example}, got a string; ignored`);
    opts = {};
  }
  checkUnknownKeys(p, opts, [...Object.keys(GENERAL_FIELDS), ...definitions.map((d) => d.optionsKey)], '');
  const runName = defaultRunName(env, now);
  const targets: ResolvedTarget[] = [];
  const invalid: TargetDefinition[] = [];
  const invalidContainers: Record<string, { name: string; id?: string }> = {};
  const secrets: string[] = [];
  const off: TargetDefinition[] = [];
  // Read again below (its problem said there): a target setting that cannot go with split mode is a settings problem.
  const projectsMode = readField(new Problems(), 'projects', GENERAL_FIELDS.projects, opts.projects, env);
  for (const definition of definitions) {
    const own = targetOptions(p, opts, definition.optionsKey);
    if (own === 'off' || switchedOffByEnv(p, env, definition)) {
      // Redacted all the same: the credentials are still in the environment.
      secrets.push(...definition.secrets({}, env));
      off.push(definition);
      continue;
    }
    checkUnknownKeys(p, own, definition.optionKeys, `${definition.optionsKey}.`);
    secrets.push(...definition.secrets(own, env));
    if (input.only && !input.only.includes(definition.id)) continue;
    const override = input.overrides?.[definition.id];
    const before = p.lines.length;
    const config = definition.readConfig({
      options: { ...own, ...override?.settings },
      env,
      problems: p,
      runName,
      container: override?.container,
      projects: projectsMode,
    });
    if (config === undefined) continue;
    if (p.lines.length === before) targets.push({ definition, config });
    else {
      invalid.push(definition);
      const meta = definition.journalMeta(config);
      invalidContainers[definition.id] = { name: meta.containerName, id: meta.containerId };
    }
  }
  // Read after the targets: their lines come first, as the user's options object has them.
  const g = readFields(p, GENERAL_FIELDS, opts, env)!; // (undefined only with enabledBy)
  const ci = detectCi(env);
  const projects = [...new Set((input.projects ?? []).filter(Boolean))];
  return Object.freeze({
    targets: Object.freeze(targets),
    invalid: Object.freeze(invalid),
    invalidContainers: Object.freeze(invalidContainers),
    off: Object.freeze(off),
    definitions,
    outboxDir: path.resolve(rootDir, g.outboxDir),
    summaryFile: path.resolve(rootDir, g.summaryFile),
    failOnPublishError: g.failOnPublishError,
    dryRun: g.dryRun,
    debug: g.debug,
    publishTimeoutMs: g.publishTimeout,
    requestTimeoutMs: g.requestTimeout * 1000,
    evidence: { attachments: g.attachments, maxBytes: g.attachmentMaxBytes },
    projects: keepsProjectsApart(g.projects, targets, p),
    // build / environment / description: options, else env, else what the CI build and the projects say.
    runInfo: {
      build: g.build ?? buildLabel(ci),
      environment: g.environment ?? (projects.length ? projects.join(', ') : undefined),
      description: g.description ?? runDescription(ci),
    },
    problems: Object.freeze(p.lines),
    secrets: Object.freeze(secrets.filter((s) => s.length >= 4)),
  });
}

/** Split mode only when every enabled target can keep projects apart (a definition's `places`); else merge, said once. */
function keepsProjectsApart(projects: 'merge' | 'split', targets: readonly ResolvedTarget[], p: Problems): 'merge' | 'split' {
  const cannot = targets.filter((t) => !t.definition.places).map((t) => t.definition.label);
  if (projects === 'merge' || !cannot.length) return projects;
  p.add('projects', 'PW_TMS_PROJECTS', `${cannot.join(' and ')} cannot keep projects apart yet; merge is used`);
  return 'merge';
}

/** A target's options object; `false` switches the target off (`true`: on as usual, when credentials are present). */
function targetOptions(p: Problems, opts: Record<string, unknown>, key: string): Record<string, unknown> | 'off' {
  const v = opts[key];
  if (v === false) return 'off';
  if (v === undefined || v === null || v === true) return {};
  if (!isPlainObject(v)) {
    p.add(key, undefined, `expected an object, or false to switch it off; ignored`);
    return {};
  }
  return v;
}

/** The line for a run with no target to publish to: what switched a service off, what would enable the others. */
export function noTargetLine(c: Pick<ResolvedConfig, 'off' | 'definitions'>): string {
  const off = c.off.map((d) => `${d.label} switched off by ${d.optionsKey}: false or ${d.envPrefix}_ENABLED`);
  const rest = c.definitions.filter((d) => !c.off.includes(d)).map((d) => d.enableHint);
  const enable = rest.length ? `set ${rest.join(' or ')}` : '';
  return `no target enabled (${[...off, enable].filter(Boolean).join('; ')}); nothing will be published`;
}

/**
 * `<PREFIX>_ENABLED=false` (or 0/no/off): the CI's way to switch a service off without editing the config,
 * when its credentials are in the environment (an organisation-wide secret).
 */
function switchedOffByEnv(p: Problems, env: Env, definition: TargetDefinition): boolean {
  // Unreadable: off, the safe reading of a switch that was clearly meant to be set (it has no other use).
  const unreadable = { value: false, because: 'taken as false: switched off' };
  return !readField(p, definition.optionsKey, bool(`${definition.envPrefix}_ENABLED`, true, unreadable), undefined, env);
}
