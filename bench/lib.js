'use strict';
/**
 * Shared helpers of the benchmarks. Everything here uses the BUILT package (dist/), as a user gets it.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');

const REPO = path.resolve(__dirname, '..');
const DIST = path.join(REPO, 'dist');
const QUICK = process.env.BENCH_QUICK === '1';
const PW_CLI = require.resolve('@playwright/test/cli', { paths: [REPO] });
const BIN = path.join(REPO, 'bin/playwright-tms-reporter.js');

/** @type {typeof import('../dist/internal')} */
const internal = require(path.join(DIST, 'internal.js'));
const { PublishRun, signRequest, TARGETS, machinePacingDir } = internal;

/**
 * The sandbox, whose close also removes the pacing windows the publishers left for CucumberStudio's
 * origin under the temp folder (kept after a process ends while the service still counts its calls).
 * @param {import('../dist/internal').SandboxOptions} options
 */
async function startSandbox(options) {
  const sandbox = await internal.startSandbox(options);
  const close = sandbox.close.bind(sandbox);
  const dirs = [sandbox.origin, sandbox.formerOrigin].filter((o) => !!o).map((o) => machinePacingDir(/** @type {string} */ (o)));
  return Object.assign(sandbox, {
    close: async () => {
      await close();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
      try {
        fs.rmdirSync(path.dirname(dirs[0]));
      } catch {
        // another sandbox's publishers pace there
      }
    },
  });
}

/** Options + env -> the reporter's resolved config, as the reporter resolves it. */
function resolveConfig(options, env, rootDir) {
  return internal.resolveConfig({ definitions: TARGETS, options, env, rootDir });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function silentPrinter(lines = []) {
  const push = (l) => lines.push(l);
  return { info: push, error: push, debug: () => {}, lines };
}

let counter = 0;
/** Folders this process made: removed when it exits (an interrupted bench leaves only its own). */
const made = [];
/**
 * Removes the folders this process made (and `.tmp` when nothing else uses it). Also called by the tests that
 * drive a figure (test/integration/bench-state.test.ts): their process is a vitest fork that runs file after
 * file and is ended without an 'exit' event.
 */
function removeTmpDirs() {
  const any = made.length > 0;
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  // `.tmp` itself only when nothing else (a test run) is using it.
  try {
    if (any) fs.rmdirSync(path.join(REPO, '.tmp'));
  } catch {
    // not empty: in use
  }
}
process.on('exit', removeTmpDirs);
function tmpDir(label) {
  const dir = path.join(REPO, '.tmp', `bench-${label}-${process.pid}-${Date.now()}-${counter++}`);
  fs.mkdirSync(dir, { recursive: true });
  made.push(dir);
  return dir;
}

function pick(env, prefix) {
  return Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith(prefix)));
}

/**
 * Synthetic TestRecords: key PROJ-(offset+i+1) and/or scenario (csOffset+i+1); every `failEvery`-th fails
 * (with `screenshot`: a path every failed test attaches).
 * @param {number} n
 * @param {{ failEvery?: number, offset?: number, zephyr?: boolean, cs?: boolean, csOffset?: number, screenshot?: string }} [o]
 * @returns {import('../dist/internal').TestRecord[]}
 */
function records(n, { failEvery = 100, offset = 0, zephyr = true, cs = false, csOffset = 100, screenshot } = {}) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const failed = failEvery > 0 && (i + 1) % failEvery === 0;
    out.push({
      testId: `t${i}`,
      title: `bench › file${i % 10}.spec.ts › test ${i}`,
      keys: { ...(zephyr ? { zephyr: [`PROJ-${offset + i + 1}`] } : {}), ...(cs ? { cucumberstudio: [String(csOffset + i + 1)] } : {}) },
      outcome: /** @type {'failed' | 'passed'} */ (failed ? 'failed' : 'passed'),
      error: failed ? `Error: expect(received).toBe(expected)\n\nExpected: 0\nReceived: 1\n    at file${i % 10}.spec.ts:${i}:7` : undefined,
      attempts: 1,
      // Evidence: a failed test's screenshot (one upload per failed test under the default policy).
      ...(failed && screenshot
        ? { attachments: [{ name: 'screenshot', contentType: 'image/png', path: screenshot }], evidence: /** @type {true} */ (true) }
        : {}),
    });
  }
  return out;
}

/** Waits until the sandbox saw no new request of `service` for `quietMs` (min `minMs`, max `maxMs`). */
async function waitQuiet(sandbox, service, { quietMs = 500, minMs = 2000, maxMs = 60000 } = {}) {
  const start = Date.now();
  let last = sandbox.stats()[service].requests;
  let lastChange = Date.now();
  for (;;) {
    await sleep(100);
    const now = sandbox.stats()[service].requests;
    if (now !== last) {
      last = now;
      lastChange = Date.now();
    }
    const t = Date.now() - start;
    if (t >= maxMs || (t >= minMs && Date.now() - lastChange >= quietMs)) return t;
  }
}

function zCycle(sandbox, name) {
  return sandbox.state().zephyr.cycles.filter((c) => c.name === name);
}

/** Exact-state check of one Zephyr cycle against key -> expected status id. */
function checkZephyr(sandbox, name, expected) {
  const cycles = zCycle(sandbox, name);
  const seen = new Map();
  let duplicates = Math.max(0, cycles.length - 1);
  for (const c of cycles) {
    for (const e of c.executions) {
      if (seen.has(e.issueKey)) duplicates++;
      else seen.set(e.issueKey, e.statusId);
    }
  }
  let delivered = 0;
  let lost = 0;
  for (const [key, status] of Object.entries(expected)) {
    const got = seen.get(key);
    // A skipped test leaves its execution UNEXECUTED (-1) or absent.
    if (got === status || (status === -1 && got === undefined)) delivered++;
    else lost++;
  }
  return { expected: Object.keys(expected).length, delivered, duplicates, lost, cycles: cycles.length };
}

/** Exact-state check of one CucumberStudio run: one result per test snapshot with the expected status. */
function checkCs(sandbox, name, expected) {
  const runs = sandbox.state().cucumberstudio.testRuns.filter((r) => r.name === name);
  let duplicates = Math.max(0, runs.length - 1);
  const last = new Map();
  for (const r of runs) {
    for (const s of r.snapshots) {
      if (s.results.length > 1) duplicates += s.results.length - 1;
      if (s.results.length) last.set(s.scenarioId, s.results[s.results.length - 1].status);
    }
  }
  let delivered = 0;
  let lost = 0;
  for (const [id, status] of Object.entries(expected)) {
    if (last.get(Number(id)) === status) delivered++;
    else lost++;
  }
  return { expected: Object.keys(expected).length, delivered, duplicates, lost, runs: runs.length };
}

/**
 * Exact-state check of one Xray Test Execution (by summary): one run per Test, with the expected status; a second
 * execution of that summary counts as duplicates, and so does a file on a run twice (evidence never twice).
 */
function checkXray(sandbox, name, expected) {
  const executions = sandbox.state().xray.executions.filter((e) => e.summary === name);
  let duplicates = Math.max(0, executions.length - 1);
  const seen = new Map();
  for (const e of executions) {
    for (const r of e.runs) {
      if (seen.has(r.testKey)) duplicates++;
      else seen.set(r.testKey, r.status);
      const files = r.evidence.map((f) => f.filename);
      duplicates += files.length - new Set(files).size;
    }
  }
  let delivered = 0;
  let lost = 0;
  for (const [key, status] of Object.entries(expected)) {
    const got = seen.get(key);
    // A skipped test's run stays TODO or is absent.
    if (got === status || (status === 'TODO' && got === undefined)) delivered++;
    else lost++;
  }
  return { expected: Object.keys(expected).length, delivered, duplicates, lost, executions: executions.length };
}

/** A naive per-test Zephyr publisher (the baseline): POST /execution + PUT /execution/{id}, sequential. */
async function naiveZephyr(env, recs, cycleName) {
  const creds = {
    baseUrl: env.ZEPHYR_BASE_URL,
    accessKey: env.ZEPHYR_ACCESS_KEY,
    secretKey: env.ZEPHYR_SECRET_KEY,
    accountId: env.ZEPHYR_ACCOUNT_ID,
  };
  const projectId = Number(env.ZEPHYR_PROJECT_ID);
  const versionId = -1;
  let calls = 0;
  const call = async (method, rel, body) => {
    const url = `${creds.baseUrl}/public/rest/api/1.0${rel}`;
    const token = await signRequest(creds, method, url, Math.floor(Date.now() / 1000));
    calls++;
    const res = await fetch(url, {
      method,
      headers: {
        Authorization: `JWT ${token}`,
        zapiAccessKey: creds.accessKey,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
      body: body && JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`naive: ${method} ${rel} -> ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  const started = performance.now();
  const cycle = await call('POST', '/cycle', { name: cycleName, projectId, versionId });
  for (const r of recs) {
    const n = Number(r.keys.zephyr[0].split('-')[1]);
    const issueId = 100000 + n;
    const created = await call('POST', '/execution', { issueId, projectId, versionId, cycleId: cycle.id });
    const status = r.outcome === 'failed' ? 2 : 1;
    await call('PUT', `/execution/${created.execution.id}`, {
      id: created.execution.id,
      issueId,
      projectId,
      cycleId: cycle.id,
      versionId,
      status: { id: status },
      comment: r.error ?? '',
    });
  }
  return { calls, ms: performance.now() - started };
}

/**
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number, onSpawn?: (child: import('node:child_process').ChildProcess) => void }} [options]
 * @returns {Promise<{ exitCode: number, signal?: NodeJS.Signals | null, output: string }>}
 */
function exec(cmd, args, { cwd = REPO, env = process.env, timeoutMs = 600000, onSpawn } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    onSpawn?.(child);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ exitCode: code ?? (signal ? 128 : 1), signal, output });
    });
  });
}

function cleanEnv(extra = {}) {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, LANG: 'C.UTF-8', ...extra };
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));
}

function machine() {
  let commit = '';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO }).toString().trim();
  } catch {}
  const pw = require(require.resolve('@playwright/test/package.json', { paths: [REPO] })).version;
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memGB: Math.round(os.totalmem() / 2 ** 30),
    playwright: pw,
    commit,
    quick: QUICK,
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

module.exports = {
  removeTmpDirs,
  REPO,
  DIST,
  QUICK,
  PW_CLI,
  BIN,
  startSandbox,
  resolveConfig,
  PublishRun,
  signRequest,
  sleep,
  silentPrinter,
  tmpDir,
  pick,
  records,
  waitQuiet,
  checkZephyr,
  checkCs,
  checkXray,
  naiveZephyr,
  exec,
  cleanEnv,
  machine,
  median,
};
