/**
 * A live `playwright test` child process the test can interrupt: its tests can be held on gates (files
 * the test creates) and say when they started (marker files), Playwright's own JSON report says what it
 * recorded, and the process can be signalled (SIGINT as a CI cancel sends it, SIGKILL) mid-run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseEnv, countStart, PLAIN_COMMONJS, readOutput, REPO, tempDir, withCpuLog } from './harness';

const PW_CLI = require.resolve('@playwright/test/cli', { paths: [REPO] });

/** Spec text header: every test may wait on a gate, with no timeout of its own (the run is interrupted instead). */
export const SPEC_HEAD = `const { test } = require('@playwright/test');
const fs = require('node:fs');
const path = require('node:path');
test.setTimeout(0);
const mark = (name) => fs.writeFileSync(path.join(process.env.MARKS, name), '');
async function gate(name) {
  while (!fs.existsSync(path.join(process.env.MARKS, 'gate-' + name))) await new Promise((r) => setTimeout(r, 50));
}
`;

/** A test that marks its start, waits until the test opens `gateName`, then passes or fails. */
export function gatedTest(title: string, tags: string[], gateName: string, fails = false): string {
  return `test(${JSON.stringify(title)}, { tag: ${JSON.stringify(tags)} }, async () => {
  mark(${JSON.stringify(title)});
  await gate(${JSON.stringify(gateName)});
  ${fails ? `throw new Error(${JSON.stringify(`${title} failed`)});` : ''}
});\n`;
}

/** A test that finishes at once. */
export function quickTest(title: string, tags: string[], fails = false): string {
  return `test(${JSON.stringify(title)}, { tag: ${JSON.stringify(tags)} }, () => {${fails ? ` throw new Error(${JSON.stringify(`${title} failed`)});` : ''} });\n`;
}

export interface LiveRun {
  dir: string;
  outboxDir: string;
  child: ChildProcess;
  /** Resolves when the Playwright process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
  open(gateName: string): void;
  /** Titles of the gated tests that have started. */
  started(): string[];
  /**
   * Tests Playwright has reported final so far: the dot reporter's marks. Reporters get each event in
   * config order within one call, so the tms reporter (after dot) has had these tests when they show.
   */
  finished(): number;
  /** Playwright's JSON report: title -> status of each result (empty list for a test that never ran). */
  recorded(): Record<string, string[]>;
  /** Kills whatever is left of the run (workers included). */
  cleanup(): void;
}

/**
 * Starts `playwright test` with the dot, JSON and tms reporters (in that order: the tms reporter's onEnd runs last).
 * One worker unless the test needs tests running side by side (each worker is a Node process loading Playwright:
 * ≈ 1 s of CPU): with one, tests run in file then declaration order, so a gated test holds the ones after it.
 */
export function startLiveRun(
  files: Record<string, string>,
  env: Record<string, string | undefined>,
  o: { workers?: number } = {},
): LiveRun {
  const dir = tempDir('live');
  const marks = path.join(dir, 'marks');
  fs.mkdirSync(marks, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.join(dir, 'tests'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'tests', name), SPEC_HEAD + text);
  }
  const reporters = [['dot'], ['json', { outputFile: 'results.json' }], ['playwright-tms-reporter', {}]];
  fs.writeFileSync(
    path.join(dir, 'playwright.config.cjs'),
    // outputDir given: by default Playwright writes test-results next to the nearest package.json (the repository).
    `module.exports = { testDir: './tests', outputDir: './test-results', workers: ${o.workers ?? 1}, fullyParallel: true, retries: 0, reporter: ${JSON.stringify(reporters)} };\n`,
  );
  const outboxDir = path.join(dir, 'outbox');
  const childEnv = withCpuLog(
    baseEnv({
      PW_TMS_OUTBOX_DIR: outboxDir,
      PW_TMS_SUMMARY_FILE: path.join(dir, 'summary.json'),
      MARKS: marks,
      ...PLAIN_COMMONJS,
      ...env,
    }),
  );
  countStart([PW_CLI, 'test']);
  // Its own process group, so that cleanup can reach the workers of a killed runner.
  const child = spawn(process.execPath, [PW_CLI, 'test', '-c', 'playwright.config.cjs'], { cwd: dir, env: childEnv, detached: true });
  const output = readOutput(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, output: output() })),
  );
  return {
    dir,
    outboxDir,
    child,
    exited,
    open: (gateName) => fs.writeFileSync(path.join(marks, `gate-${gateName}`), ''),
    started: () => fs.readdirSync(marks).filter((f) => !f.startsWith('gate-')),
    finished: () => {
      const text = output();
      const start = text.indexOf('\n', text.indexOf('Running '));
      if (start < 0) return 0;
      const marks = text.slice(start + 1).replace(/\[tms-reporter\][^\n]*\n?/g, '');
      return marks.split('\n\n')[0].replace(/[^·F×±°T]/g, '').length;
    },
    recorded: () => {
      type Spec = { title: string; tests: Array<{ results: Array<{ status: string }> }> };
      type Suite = { specs?: Spec[]; suites?: Suite[] };
      const report = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as Suite;
      const out: Record<string, string[]> = {};
      const walk = (s: Suite) => {
        for (const spec of s.specs ?? []) out[spec.title] = spec.tests.flatMap((t) => t.results.map((r) => r.status));
        for (const inner of s.suites ?? []) walk(inner);
      };
      walk(report);
      return out;
    },
    cleanup: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* the group is gone already */
      }
    },
  };
}

/** Waits for an observable state (polled), failing with `what` after `ms`. */
export async function until(what: string, ready: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > end) throw new Error(`still waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
