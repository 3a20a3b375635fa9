import * as fs from 'node:fs';
import { configDirOf, resolveConfig, type ResolvedConfig, type TargetOverride } from '../config/config';
import { JOURNAL_VERSION, Outbox, type Journal } from '../engine/outbox';
import { PublishRun, type PublishRunOptions } from '../engine/run';
import type { Env } from '../kit/config-fields';
import { acquireJournalLockWatching, type WatchingLockOptions } from '../kit/journal-lock';
import type { TargetDefinition } from '../kit/target';
import { keysOf, type RunSummary } from '../shared/model';
import { labelled, type Printer } from '../shared/output';
import { summaryLine } from '../shared/summary';
import { TARGETS, type TmsReporterOptions } from '../targets';

export interface ReplayResult {
  journals: number;
  summaries: RunSummary[];
  /** Results and files still unsent after the replay (kept in the outbox). */
  unsent: number;
  /** The folder does not exist (or is not a folder). */
  missing?: boolean;
}

/**
 * Sends what earlier runs could not, through the same pipeline as a live run. Idempotent: items a
 * journal marks done are skipped, statuses are absolute, and completed journals are deleted.
 * Credentials come from env/options (journals hold none); where the results go comes from the journal.
 */
export async function replay(
  dir: string,
  options: TmsReporterOptions,
  env: Env,
  printer: Printer,
  deps?: PublishRunOptions['deps'],
  definitions: readonly TargetDefinition[] = TARGETS,
  lockOptions?: WatchingLockOptions,
  /** Where `options` came from, for the line that says which settings a replay uses (`playwright.config.ts`). */
  optionsSource = 'the environment',
  /** Ctrl+C / SIGTERM: the sending stops, what is not sent stays in the outbox, later journals are left as they are. */
  stop?: AbortSignal,
): Promise<ReplayResult> {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    // No folder: a run that sent everything never made one. A file in its place is a mistake.
    if (fs.existsSync(dir)) printer.error(`replay: ${dir} is a file, not the outbox folder (outboxDir, PW_TMS_OUTBOX_DIR)`);
    else printer.info(`nothing to replay in ${dir} (no such folder)`);
    return { journals: 0, summaries: [], unsent: 0, missing: true };
  }
  const files = Outbox.list(dir);
  const result: ReplayResult = { journals: files.length, summaries: [], unsent: 0 };
  if (!files.length) {
    printer.info(`nothing to replay in ${dir}`);
    return result;
  }
  for (const file of files) {
    if (stop?.aborted) {
      result.unsent += 1;
      continue;
    }
    // A lock from another host may be a copy (an outbox uploaded as a CI artifact by a run that was killed): watched first.
    const lock = await acquireJournalLockWatching(file, {
      ...lockOptions,
      onWatch: (holder, ms) =>
        printer.info(
          `${file} is locked by process ${holder.pid ?? '?'} on ${holder.hostname} (another machine): watching the lock up to ${Math.round(ms / 1000)} s for a sign of life — an outbox copied from a run that was killed has none`,
        ),
    });
    if (!lock.acquired) {
      const who = lock.heldBy.pid
        ? `process ${lock.heldBy.pid}${lock.heldBy.hostname ? ` on ${lock.heldBy.hostname}` : ''}`
        : 'another process';
      printer.error(
        `${file} is in use by ${who}, a run still publishing or another replay (lock ${lock.file}, last sign of life ${Math.round(lock.heldBy.ageMs / 1000)} s ago); skipped`,
      );
      continue;
    }
    // A lock left by a run or replay that was killed would otherwise block this journal forever.
    if (lock.tookOver)
      printer.info(
        `took over a stale lock on ${file} (process ${lock.tookOver.pid ?? '?'}: ${lock.tookOver.why}, ${Math.round(lock.tookOver.ageMs / 1000)} s old)`,
      );
    try {
      // Read only now, under the lock: whoever held it may have sent more, or finished and deleted it.
      if (!fs.existsSync(file)) continue;
      const journal = Outbox.parse(file);
      if (journal.version !== undefined && journal.version !== JOURNAL_VERSION) {
        // Its lines may not mean what this version's do (a CI artifact replayed with another version of the package).
        printer.error(`${file}: journal version ${journal.version}, written by another version of this package; kept, not replayed`);
        result.unsent += Math.max(1, journal.records.length);
        continue;
      }
      if (journal.damaged)
        printer.error(`${file}: ${journal.damaged} line(s) could not be read (cut short by a killed process, or damaged) and are left out`);
      const pending = Object.keys(journal.targets).filter((t) => !journal.complete.has(t));
      if (!pending.length) {
        // Completed after its run had given up on it (work that went on past publishTimeout).
        Outbox.remove(file);
        printer.info(`${file}: already complete; removed`);
        continue;
      }
      const config = configFor(journal, pending, options, env, definitions, printer, optionsSource);
      if (!config.targets.length) {
        printer.error(
          `${journal.file}: ${pending.map((t) => labelOf(definitions, t)).join(', ')} not configured in this environment; kept for a later replay`,
        );
        result.unsent += journal.records.length;
        continue;
      }
      // Results are sent as they were then: said with their age, as a newer run may have published since.
      const age = journal.createdAt ? ` of a run ${ago(Date.now() - Date.parse(journal.createdAt))} (${journal.createdAt})` : '';
      printer.info(`replaying ${journal.records.length} test result${journal.records.length === 1 ? '' : 's'}${age} from ${journal.file}`);
      const run = new PublishRun(config, { printer, journal, deps, stop });
      // Pending targets not configured here (or whose settings are invalid here) keep the journal for a later replay.
      const held = pending
        .filter((t) => !config.targets.some((c) => c.definition.id === t))
        .map((t) => ({ id: t, count: journal.records.filter((r) => keysOf(r, t).length).length }));
      for (const h of held) if (!h.count) run.outbox?.complete(h.id);
      const summary = await run.finish(journal.records, 0);
      for (const s of Object.values(summary.targets)) {
        for (const e of s.errors) printer.error(labelled(s.label ?? s.target, e));
        printer.info(summaryLine(s));
        // Files too: a CI step that replays until it succeeds must not stop while files are kept.
        result.unsent += s.unsent + (s.attachments?.failed.length ?? 0);
      }
      for (const h of held.filter((x) => x.count)) {
        printer.error(
          `${journal.file}: ${labelOf(definitions, h.id)} not configured in this environment (or its settings are invalid, see above); its ${h.count} result${h.count === 1 ? '' : 's'} kept for a later replay`,
        );
        result.unsent += h.count;
      }
      result.summaries.push(summary);
    } finally {
      lock.release();
    }
  }
  return result;
}

/**
 * Current credentials + the journal's destination, resolved in one go (the journal's settings and
 * container win over the environment's); targets already complete are left out. Settings that are
 * still invalid keep the journal for a later replay rather than sending anywhere else.
 */
function configFor(
  journal: Journal,
  pending: readonly string[],
  options: TmsReporterOptions,
  env: Env,
  definitions: readonly TargetDefinition[],
  printer: Printer,
  source: string,
): ResolvedConfig {
  const rootDir = configDirOf(options);
  // A container id the run was configured with but never reached may be the cause being fixed (a wrong
  // ZEPHYR_CYCLE_ID): an id the environment now gives wins over it. One the run used stays.
  const now = resolveConfig({ definitions, options, env, rootDir, only: pending });
  const overrides: Record<string, TargetOverride> = {};
  for (const id of pending) {
    const m = journal.targets[id];
    const t = now.targets.find((x) => x.definition.id === id);
    const envId = t ? t.definition.journalMeta(t.config).containerId : undefined;
    const fixed = !journal.containerFound.has(id) && envId && envId !== m.containerId ? envId : undefined;
    if (fixed) {
      const d = definitions.find((x) => x.id === id);
      // A run configured by name has no id to name (and may have made none): named by its name, else not at all.
      const kind = d?.containerKind ?? 'container';
      const meant = m.containerId ? `${kind} ${m.containerId}` : m.containerName ? `${kind} "${m.containerName}"` : `its ${kind}`;
      printer.info(`${d?.label ?? id}: the run never reached ${meant}; replaying into ${fixed}, as configured now`);
    }
    overrides[id] = { settings: m.settings, container: { id: fixed ?? m.containerId, name: m.containerName || undefined } };
    if (now.targets.some((x) => x.definition.id === id) || now.invalid.some((d) => d.id === id))
      printer.info(settingsLine(labelOf(definitions, id), m.settings, journal.unresolved.get(id) ?? [], source));
  }
  const config = resolveConfig({ definitions, options, env, rootDir, overrides, only: pending });
  for (const p of config.problems) printer.error(p);
  return { ...config, invalid: [] };
}

/**
 * Which settings a replay publishes with: the run's, from its journal, where the run resolved them; the config's
 * (and the environment's) where it could not — a target held back for bad settings journals none, and a setting
 * the service refused (a status name it does not have) is marked so.
 */
function settingsLine(label: string, settings: Record<string, unknown>, unresolved: readonly string[], source: string): string {
  const keys = Object.keys(settings);
  if (!keys.length) return `${label}: the run could not resolve its settings; replaying with those of ${source}`;
  const refused = unresolved.length ? `; ${unresolved.join(', ')} from ${source} (the service refused the run's)` : '';
  return `${label}: replaying with the run's settings from its journal (${keys.join(', ')})${refused}; credentials and the rest from ${source}`;
}

/** `3 min ago`, `5 h ago`, `2 days ago`. */
function ago(ms: number): string {
  const min = Math.max(0, Math.round(ms / 60_000));
  if (min < 120) return `${min} min ago`;
  const h = Math.round(min / 60);
  return h < 48 ? `${h} h ago` : `${Math.round(h / 24)} days ago`;
}

function labelOf(definitions: readonly TargetDefinition[], id: string): string {
  return definitions.find((d) => d.id === id)?.label ?? id;
}
