/**
 * Integration harness: writes an inline Playwright project into a temp folder inside the repository
 * (so `playwright-tms-reporter` resolves by package name, as for a user, via package self-reference),
 * runs a real `playwright test` child process against the sandbox, live or through blob -> merge-reports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, inject } from 'vitest';
import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox';
import type { RunSummary } from '../../src/shared/model';
import { machinePacingDir } from '../../src/kit/pacing-peers';

export const REPO = path.resolve(__dirname, '../..');
const PW_CLI = require.resolve('@playwright/test/cli', { paths: [REPO] });
const BIN = path.join(REPO, 'bin/playwright-tms-reporter.js');

export type Mode = 'live' | 'merge';
export const MODES: Mode[] = ['live', 'merge'];

export interface RunOptions {
  files: Record<string, string>;
  env?: Record<string, string | undefined>;
  /** Reporter options (besides env). */
  options?: Record<string, unknown>;
  mode?: Mode;
  /**
   * Config flavour: CommonJS (.cjs, the default), TypeScript or ESM (.mjs). The specs are CommonJS whatever the
   * flavour; a CommonJS run has Playwright's TypeScript/ESM loader off (see PLAIN_COMMONJS).
   */
  config?: 'ts' | 'esm' | 'cjs';
  retries?: number;
  /**
   * Playwright workers, 1 by default: each is a Node process loading Playwright (≈ 1 s of CPU), and one runs the
   * tests in file then declaration order. A test that needs tests side by side asks for 2.
   */
  workers?: number;
  args?: string[];
  /** Reuse a folder (e.g. to run replay in the same place). */
  dir?: string;
  nodeOptions?: string;
  /** Playwright's globalTeardown (a file under `files`, e.g. `tests/x.cjs`): it runs after the last test, before any reporter's onEnd. */
  globalTeardown?: string;
  /** Playwright's globalSetup (a file under `files`): it runs before the first test; when it throws, no test runs. */
  globalSetup?: string;
  /** Named projects (none: Playwright's one unnamed project). */
  projects?: string[];
  /** Playwright's `use` (e.g. `{ trace: 'on-first-retry' }`). */
  use?: Record<string, unknown>;
  /**
   * Options of a second instance of the reporter in the same config. It is always a live instance: in merge mode
   * it runs in `playwright test`, beside the blob reporter, while `options` are merge-reports' instance's.
   */
  secondReporter?: Record<string, unknown>;
  /**
   * Options of further instances after those (live, as `secondReporter`): one Playwright run publishing the same
   * tests to several sandboxes or places, one instance each (its own baseUrl, outboxDir, summaryFile), instead of
   * one run each.
   */
  moreReporters?: Record<string, unknown>[];
}

export interface RunResult {
  dir: string;
  exitCode: number;
  output: string;
  summary?: RunSummary;
  outboxDir: string;
}

export { tempDir, removeTempDirs } from '../temp-dirs';
import { tempDir } from '../temp-dirs';

export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  // A clean env: the CI's own variables (GITHUB_*, CI…) must not leak into the run's naming.
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    LANG: 'C.UTF-8',
    // The sandbox has no rate limit unless a test sets one: client pacing (28 calls a minute by default) would
    // only slow the runs down. The defaults are unit-tested (zephyr-pacing) and measured (bench figures 2, 8).
    ZEPHYR_RATE_LIMIT: 'off',
    // Likewise CucumberStudio's 195 a minute: it is shared through the pacing folder of the sandbox's origin, so
    // every run and replay of a test file counts the calls of the file's earlier ones, and a late replay waited
    // out the minute (30 s of evidence-policies). Tests of pacing set their own (shards, cucumberstudio).
    CUCUMBERSTUDIO_RATE_LIMIT: 'off',
    // Playwright's Babel cache, keyed by file path: under the system temp folder it kept every run folder's files
    // (64,000 files after some suites); in the run's scratch folder it goes with the run.
    PLAYWRIGHT_TRANSFORM_CACHE_DIR: path.join(inject('scratchDir'), 'transform-cache'),
    ...extra,
  };
  // Xray is opt-in (see xrayOnly): the sandbox's env() names it too, and every other test keeps its exact calls and output.
  const xray = env[XRAY_OPT_IN] === '1';
  delete env[XRAY_OPT_IN];
  // CucumberStudio's bulk push alike (see withPush): without the mark, results go one post per result as before.
  const push = env[PUSH_OPT_IN] === '1';
  delete env[PUSH_OPT_IN];
  return Object.fromEntries(
    Object.entries(env).filter(
      (e): e is [string, string] =>
        e[1] !== undefined && (xray || !e[0].startsWith('XRAY_')) && (push || e[0] !== 'CUCUMBERSTUDIO_SECRET_TOKEN'),
    ),
  );
}

/** Marks an env whose CUCUMBERSTUDIO_SECRET_TOKEN a run keeps (baseEnv drops it otherwise); never passed to the child. */
const PUSH_OPT_IN = 'PW_TMS_TEST_WITH_PUSH';

/** `env` with CucumberStudio's bulk push on (its secret token kept), plus `extra`. */
export function withPush(
  env: Record<string, string | undefined>,
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return { ...env, [PUSH_OPT_IN]: '1', ...extra };
}

/** Marks an env whose XRAY_* vars a run keeps (baseEnv drops them otherwise); never passed to the child. */
const XRAY_OPT_IN = 'PW_TMS_TEST_WITH_XRAY';

/** The sandbox's Xray vars only (Zephyr and CucumberStudio off), with the mark that keeps them, plus `extra`. */
export function xrayOnly(env: Record<string, string>, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const xray = Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('XRAY_')));
  return { ...xray, [XRAY_OPT_IN]: '1', ...extra };
}

export function exec(
  cmd: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  timeoutMs = 180_000,
): Promise<{ exitCode: number; output: string }> {
  countStart(cmd === process.execPath ? args : [cmd, ...args]);
  env = withCpuLog(env);
  return new Promise((resolve) => {
    // A process group of its own: a run that times out goes with its whole tree (Playwright's workers, a merge's
    // children), never leaving a worker behind to load the machine for the tests after it.
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const output = readOutput(child);
    const timer = setTimeout(() => killTree(child.pid), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ exitCode: code ?? (signal ? 128 : 1), output: output() });
    });
  });
}

/**
 * A child's stdout and stderr as one text as it arrives, its lines whole. Playwright's dot reporter ends no line
 * after a test's mark (stdout) while the reporter writes whole lines (stderr): read in arrival order, a loaded
 * machine glued a reporter line to the marks ("°°[tms-reporter] …"), and bad-input missed the line it looked for
 * at a line's start. A chunk from the other stream starts a line of its own.
 */
export function readOutput(child: ChildProcess): () => string {
  let output = '';
  let last: unknown;
  const from = (stream: unknown) => (d: Buffer) => {
    if (stream !== last && output && !output.endsWith('\n')) output += '\n';
    last = stream;
    output += d.toString();
  };
  child.stdout?.on('data', from(child.stdout));
  child.stderr?.on('data', from(child.stderr));
  return () => output;
}

/**
 * With PW_TMS_TEST_COUNT_RUNS=<file>, appends a line per child process started (test file, then what it runs:
 * `test`, `merge-reports`, `replay`…): Playwright starts are what the suite's time goes to (≈ 3 s of CPU each).
 */
export function countStart(args: string[]): void {
  const file = process.env.PW_TMS_TEST_COUNT_RUNS;
  if (!file) return;
  const what = args[0] === PW_CLI || args[0] === BIN ? args[1] : path.basename(args[0]);
  fs.appendFileSync(file, `${path.basename(expect.getState().testPath ?? '?')}\t${what}\n`);
}

/**
 * With PW_TMS_TEST_CPU_LOG=<file>, every process the child starts logs its CPU at exit (test/integration/cpu-log.cjs):
 * `awk -F'\t' '{s[$1]+=$3} END {for (k in s) print s[k], k}' <file> | sort -nr` ranks the files by child CPU.
 */
export function withCpuLog(env: Record<string, string>): Record<string, string> {
  const log = process.env.PW_TMS_TEST_CPU_LOG;
  if (!log) return env;
  return {
    ...env,
    PW_TMS_TEST_CPU_LOG: log,
    PW_TMS_TEST_CPU_FILE: path.basename(expect.getState().testPath ?? '?'),
    NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require ${path.join(__dirname, 'cpu-log.cjs')}`.trim(),
  };
}

/** Ends a process group started `detached` (its leader and every child), by its leader's pid. */
export function killTree(pid: number | undefined, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

function configText(kind: 'ts' | 'esm' | 'cjs', reporter: unknown, o: RunOptions): string {
  // outputDir inside the run's own folder: Playwright's default is next to the nearest package.json (the repository),
  // shared by every run, and each run clears it at its start — files of a run still publishing would vanish.
  const body = `{
  testDir: './tests',
  outputDir: './test-results',
  retries: ${o.retries ?? 0},
  workers: ${o.workers ?? 1},
  fullyParallel: true,
  reporter: ${JSON.stringify(reporter)},${o.globalTeardown ? `\n  globalTeardown: ${JSON.stringify(`./${o.globalTeardown}`)},` : ''}${
    o.globalSetup ? `\n  globalSetup: ${JSON.stringify(`./${o.globalSetup}`)},` : ''
  }${o.use ? `\n  use: ${JSON.stringify(o.use)},` : ''}${o.projects ? `\n  projects: ${JSON.stringify(o.projects.map((name) => ({ name })))},` : ''}
}`;
  if (kind === 'cjs') return `module.exports = ${body};\n`;
  return `export default ${body};\n`;
}

/**
 * The env of a run whose config and specs are CommonJS: Playwright without its TypeScript/ESM loader (a loader
 * thread and Babel in every runner, its hooks in every worker: ≈ 0.3 s of CPU per runner and 0.1 s per worker,
 * ≈ 20 % of a run, measured with PW_TMS_TEST_CPU_LOG). How users load the reporter — a TypeScript spec from ESM and
 * CommonJS configs, by package name — is package.test's; the reporter itself is the same built package either way.
 */
export const PLAIN_COMMONJS = { PW_DISABLE_TS_ESM: '1' };

export async function runPlaywright(o: RunOptions): Promise<RunResult> {
  const dir = o.dir ?? tempDir('pw');
  const kind = o.config ?? 'cjs';
  const ext = kind === 'ts' ? 'ts' : kind === 'esm' ? 'mjs' : 'cjs';
  for (const [name, text] of Object.entries(o.files)) {
    const file = path.join(dir, name.startsWith('tests/') ? '' : 'tests', name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
  const tms = ['playwright-tms-reporter', o.options ?? {}];
  const outboxDir = path.join(dir, 'outbox');
  const env = baseEnv({
    PW_TMS_OUTBOX_DIR: outboxDir,
    PW_TMS_SUMMARY_FILE: path.join(dir, 'summary.json'),
    NODE_OPTIONS: o.nodeOptions,
    ...(kind === 'cjs' ? PLAIN_COMMONJS : {}),
    ...o.env,
  });
  let result: { exitCode: number; output: string };
  const second = [o.secondReporter, ...(o.moreReporters ?? [])].filter((r) => r).map((r) => ['playwright-tms-reporter', r]);
  if ((o.mode ?? 'live') === 'live') {
    fs.writeFileSync(path.join(dir, `playwright.config.${ext}`), configText(kind, [['dot'], tms, ...second], o));
    result = await exec(process.execPath, [PW_CLI, 'test', '-c', `playwright.config.${ext}`, ...(o.args ?? [])], dir, env);
  } else {
    fs.writeFileSync(path.join(dir, `playwright.config.${ext}`), configText(kind, [['dot'], ['blob'], ...second], o));
    fs.writeFileSync(path.join(dir, `merge.config.${ext}`), configText(kind, [['dot'], tms], o));
    const first = await exec(
      process.execPath,
      [PW_CLI, 'test', '-c', `playwright.config.${ext}`, ...(o.args ?? [])],
      dir,
      baseEnv({
        ...(kind === 'cjs' ? PLAIN_COMMONJS : {}),
        ...o.env,
        PLAYWRIGHT_BLOB_OUTPUT_FILE: path.join(dir, 'blob-report', 'report-1.zip'),
      }),
    );
    const merged = await exec(process.execPath, [PW_CLI, 'merge-reports', '-c', `merge.config.${ext}`, './blob-report'], dir, env);
    result = { exitCode: merged.exitCode, output: `${first.output}\n--- merge-reports ---\n${merged.output}` };
  }
  const summaryFile = path.join(dir, 'summary.json');
  const summary = fs.existsSync(summaryFile) ? (JSON.parse(fs.readFileSync(summaryFile, 'utf8')) as RunSummary) : undefined;
  return { dir, ...result, summary, outboxDir };
}

/** `npx playwright-tms-reporter replay <dir>` as a child process. */
export function runReplay(outboxDir: string, env: Record<string, string | undefined>): Promise<{ exitCode: number; output: string }> {
  return exec(process.execPath, [BIN, 'replay', outboxDir], REPO, baseEnv(env));
}

/**
 * A sandbox on an ephemeral port with fast async jobs and test generation. Closing it also removes the
 * pacing windows the runs against it left under the temp folder (CucumberStudio's, per origin).
 */
export async function testSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const sandbox = await startSandbox({
    port: 0,
    ...options,
    zephyr: { jobDelayMs: 60, ...options.zephyr },
    cucumberstudio: { generationDelayMs: 300, ...options.cucumberstudio },
  });
  const close = sandbox.close.bind(sandbox);
  // The configured base URL's origin names the folder: the current host's, or the former host's.
  const pacing = [sandbox.origin, sandbox.formerOrigin].filter((o): o is string => !!o).map((o) => machinePacingDir(o));
  return Object.assign(sandbox, {
    close: async () => {
      // Every CucumberStudio result goes into a build (interface.md): one posted with none fails the file.
      const counters = sandbox.stats().cucumberstudio?.counters as { resultsWithoutBuild?: number } | undefined;
      // Xray stores a status name it does not know as TODO without a word: no test may leave one (issue 33).
      const silentTodo = (sandbox.stats().xray?.counters as { silentTodo?: number } | undefined)?.silentTodo;
      await close();
      for (const dir of pacing) fs.rmSync(dir, { recursive: true, force: true });
      try {
        fs.rmdirSync(path.dirname(pacing[0])); // when no other sandbox's runs pace there
      } catch {
        // in use
      }
      if (counters?.resultsWithoutBuild)
        throw new Error(`CucumberStudio holds ${counters.resultsWithoutBuild} results posted with no build`);
      if (silentTodo) throw new Error(`Xray stored ${silentTodo} statuses as TODO without a word (a status name it does not know)`);
    },
  });
}

/** Every file below a folder, as text (for secret scans). */
export function allFileText(dir: string): string {
  if (!fs.existsSync(dir)) return '';
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith('.zip'))
    .map((e) => fs.readFileSync(path.join(e.parentPath ?? (e as unknown as { path: string }).path, e.name), 'utf8'))
    .join('\n');
}

export function outboxFiles(outboxDir: string): string[] {
  return fs.existsSync(outboxDir) ? fs.readdirSync(outboxDir).filter((f) => f.endsWith('.jsonl')) : [];
}

// The views on the sandbox state live in sandbox-views.ts; the tests import them from here as before.
export * from './sandbox-views';
