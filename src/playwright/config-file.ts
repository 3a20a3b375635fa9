/**
 * The reporter options a `playwright.config` holds, for the commands that run outside Playwright (`replay`,
 * `check`), so that they read the settings the run reads.
 *
 * Playwright's config loader is not public API, and a TypeScript config needs Playwright's own transform
 * (Node 20 cannot load it). So Playwright itself reads the config, through its public CLI:
 * `playwright merge-reports --config <file> <empty folder>` constructs the config's reporters and then stops
 * (there is no report to merge). This package's reporter, told so by an env var, writes the options it was
 * constructed with to a private file (0600, in a folder of its own, removed at once) and does nothing else.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** Set by `readReporterOptions` for the child: the file where each instance of the reporter writes its options. */
export const OPTIONS_OUT_ENV = 'PW_TMS_INTERNAL_OPTIONS_OUT';

/** The names Playwright looks for in the working directory, in its order. */
export const CONFIG_NAMES = [
  'playwright.config.ts',
  'playwright.config.js',
  'playwright.config.mts',
  'playwright.config.mjs',
  'playwright.config.cts',
  'playwright.config.cjs',
] as const;

/** How long Playwright may take to load a config (it compiles a TypeScript one first). */
const LOAD_TIMEOUT_MS = 60_000;

/** The config Playwright would use in `dir`, as `playwright test` run there finds it. */
export function findPlaywrightConfig(dir: string): string | undefined {
  return CONFIG_NAMES.map((n) => path.join(dir, n)).find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
}

export type ConfigRead =
  /** One entry per instance of this reporter in the config's `reporter` list (none: the config does not list it). */
  { file: string; instances: Array<Record<string, unknown>> } | { file: string; error: string };

/** The options of every instance of this reporter in `file`, as Playwright hands them to it (with `configDir`). */
export async function readReporterOptions(file: string, env: NodeJS.ProcessEnv): Promise<ConfigRead> {
  if (!fs.existsSync(file)) return { file, error: `${file} does not exist` };
  const cwd = path.dirname(file);
  const cli = playwrightCli(cwd);
  if (!cli) return { file, error: `@playwright/test is not installed where ${file} is, so the config cannot be read` };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tms-config-'));
  const out = path.join(tmp, 'options.jsonl');
  const empty = path.join(tmp, 'no-reports');
  fs.mkdirSync(empty);
  try {
    const { code, output } = await run(process.execPath, [cli, 'merge-reports', '--config', file, empty], cwd, {
      ...env,
      [OPTIONS_OUT_ENV]: out,
    });
    if (fs.existsSync(out)) {
      const instances = fs
        .readFileSync(out, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      return { file, instances };
    }
    // Loaded, reporters made, and no report to merge: the config does not list this reporter.
    if (/No report files found/.test(output)) return { file, instances: [] };
    const why = output.split('\n').find((l) => /error/i.test(l)) ?? output.split('\n').find((l) => l.trim()) ?? `exit code ${code}`;
    return { file, error: `${file} could not be read by Playwright: ${why.trim()}` };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function playwrightCli(dir: string): string | undefined {
  for (const id of ['@playwright/test/cli', 'playwright/cli']) {
    try {
      return require.resolve(id, { paths: [dir] });
    } catch {
      // the next one
    }
  }
  return undefined;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), LOAD_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: 1, output: error.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, output });
    });
  });
}

/**
 * In the child `readReporterOptions` starts: writes the reporter's options to the file it named (one line per
 * instance of the reporter) and returns true, so the instance reports nothing; false in a real run.
 */
export function handOverOptions(options: unknown, env: NodeJS.ProcessEnv): boolean {
  const out = env[OPTIONS_OUT_ENV];
  if (!out) return false;
  try {
    fs.appendFileSync(out, `${JSON.stringify(options ?? {})}\n`, { mode: 0o600 });
  } catch {
    // Not written: the command says it could not read the config.
  }
  return true;
}
