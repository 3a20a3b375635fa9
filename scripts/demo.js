#!/usr/bin/env node
// Demo: run example-project against the local sandbox of Zephyr Squad Cloud and CucumberStudio,
// then show what ended up in each service. Run with `npm run demo` (builds first) from the repo root.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { startSandbox } = require('../dist/sandbox');

const ROOT = path.resolve(__dirname, '..');
const ZEPHYR_STATUS = { '-1': 'UNEXECUTED', 1: 'PASS', 2: 'FAIL', 3: 'WIP', 4: 'BLOCKED', 5: 'PARTIALLY PASSED' };
const HAS_CHROMIUM = fs.existsSync('/usr/bin/chromium');
// What example-project/README.md promises, per key.
const EXPECTED_ZEPHYR = {
  'PROJ-1': 'PASS',
  'PROJ-2': 'PASS',
  'PROJ-3': 'PASS',
  'PROJ-4': 'PASS',
  'PROJ-5': 'PASS',
  'PROJ-6': 'FAIL',
  'PROJ-7': 'PASS',
  'PROJ-8': 'UNEXECUTED',
  'PROJ-9': 'UNEXECUTED',
  'PROJ-10': 'PASS',
  'PROJ-11': 'FAIL',
  'PROJ-12': HAS_CHROMIUM ? 'PASS' : 'UNEXECUTED',
  'PROJ-13': 'FAIL',
};
const EXPECTED_CS = { 1: 'passed', 2: 'failed', 3: 'passed', 4: 'skipped', 5: 'failed', 6: 'failed' };
/** Evidence line under a result: its files and step statuses, when it has any. */
const evidence = (files, steps) => {
  const parts = [];
  if (files && files.length) parts.push(`files: ${files.map((f) => `${f.fileName} (${f.size} B)`).join(', ')}`);
  if (steps && steps.length) parts.push(`steps: ${steps.join(', ')}`);
  return parts.length ? `\n  ${' '.repeat(9)} ${parts.join(' · ')}` : '';
};

const pad = (s, n) => String(s).padEnd(n);
const firstLine = (text) =>
  String(text || '')
    .split('\n')
    .find((l) => l.trim()) || '';
const clip = (text, n = 70) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

function runPlaywright(env) {
  const cli = require.resolve('@playwright/test/cli', { paths: [ROOT] });
  const args = [cli, 'test', '-c', 'example-project/playwright.config.ts'];
  console.log(`$ node ${path.relative(ROOT, cli)} ${args.slice(1).join(' ')}\n`);
  // Async spawn, not spawnSync: the sandbox lives in this process and must keep answering.
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(signal ? `signal ${signal}` : code));
  });
}

function printZephyr(zephyr, summary, problems) {
  console.log('\n== Zephyr Squad (sandbox) ==');
  for (const s of (zephyr && zephyr.statuses) || []) ZEPHYR_STATUS[s.id] = s.name;
  for (const cycle of (zephyr && zephyr.cycles) || []) {
    const readBack = summary && summary.container && summary.container.id === cycle.id && summary.verify && summary.verify.containerStatus;
    const status = cycle.status || (readBack ? `${readBack} (as the reporter read it back)` : 'n/a');
    console.log(`cycle "${cycle.name}" (id ${cycle.id}) — status: ${status}`);
    const executions = [...(cycle.executions || [])].sort((a, b) => a.issueKey.localeCompare(b.issueKey, 'en', { numeric: true }));
    for (const e of executions) {
      const name = ZEPHYR_STATUS[e.statusId] || `status ${e.statusId}`;
      const want = cycle.name === 'Demo' ? EXPECTED_ZEPHYR[e.issueKey] : undefined;
      const mark = want && want !== name ? `   <-- expected ${want}` : '';
      if (mark) problems.push(`Zephyr ${e.issueKey} is ${name}, expected ${want}`);
      const comment = firstLine(e.comment);
      const steps = (e.stepResults || []).map((r) => r.statusName);
      const shown = steps.some((st) => st !== 'UNEXECUTED') ? steps : [];
      console.log(
        `  ${pad(e.issueKey, 9)} ${pad(name, 11)}${comment ? ` (${clip(comment)})` : ''}${mark}`.trimEnd() + evidence(e.attachments, shown),
      );
    }
    if (cycle.name === 'Demo') {
      const seen = new Set(executions.map((e) => e.issueKey));
      if (seen.size !== executions.length) problems.push(`Zephyr cycle "Demo" has duplicate executions`);
      for (const key of Object.keys(EXPECTED_ZEPHYR)) if (!seen.has(key)) problems.push(`Zephyr ${key} missing from cycle "Demo"`);
    }
  }
}

function printCucumberStudio(cs, problems) {
  console.log('\n== CucumberStudio (sandbox) ==');
  for (const run of (cs && cs.testRuns) || []) {
    console.log(`test run "${run.name}" (id ${run.id}) — statuses: ${JSON.stringify(run.statuses)}`);
    for (const snap of run.snapshots || []) {
      const last = (snap.results || [])[snap.results.length - 1];
      const status = last ? last.status : '(no result)';
      const want = run.name === 'Demo' ? EXPECTED_CS[snap.scenarioId] : undefined;
      const mark = want && want !== status ? `   <-- expected ${want}` : '';
      if (mark) problems.push(`CucumberStudio scenario ${snap.scenarioId} is ${status}, expected ${want}`);
      const desc = last ? firstLine(last.description) : '';
      const line = `  ${pad(`#${snap.scenarioId} ${snap.name}`, 16)} ${pad(status, 8)}${desc ? ` (${clip(desc)})` : ''}${mark}`.trimEnd();
      console.log(line + evidence(last && last.attachments, last && last.stepStatusesSent ? last.stepStatuses : []));
    }
    if (run.name === 'Demo') {
      const ids = new Set((run.snapshots || []).filter((s) => (s.results || []).length).map((s) => String(s.scenarioId)));
      for (const id of Object.keys(EXPECTED_CS))
        if (!ids.has(id)) problems.push(`CucumberStudio scenario ${id} has no result in run "Demo"`);
    }
  }
}

function printStats(stats) {
  console.log('\n== Requests the sandbox received ==');
  for (const [service, s] of Object.entries(stats)) {
    console.log(
      `  ${pad(service, 15)} ${s.requests} requests, ${s.rateLimited} answered 429, ${s.faultsInjected} injected faults (500), ${s.resets} connection resets`,
    );
  }
}

function readSummary(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    return undefined;
  }
}

async function main() {
  const sandbox = await startSandbox({
    port: 0,
    faults: { zephyr: { latencyMs: 20, faultRate: 0.2 }, cucumberstudio: { latencyMs: 20 } },
  });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-tms-demo-'));
  const summaryFile = path.join(tmp, 'summary.json');
  console.log(
    `Sandbox listening on ${sandbox.origin} (20 ms latency; 20% of Zephyr requests answered with a transient 500;\n  set PW_TMS_DEBUG=1 to see every request and the retries).\n`,
  );
  const problems = [];
  try {
    // The sandbox has no rate limit here, and its injected 500s make retries: Zephyr's client pacing (28 calls a
    // minute, for the real service) would only make the demo wait for it.
    const env = {
      ...process.env,
      ...sandbox.env(),
      ZEPHYR_RATE_LIMIT: process.env.ZEPHYR_RATE_LIMIT ?? 'off',
      PW_TMS_OUTBOX_DIR: path.join(tmp, 'outbox'),
      PW_TMS_SUMMARY_FILE: summaryFile,
    };
    const code = await runPlaywright(env);
    console.log(`\nPlaywright exited with ${code}` + (code === 1 ? ' — expected: example-project has deliberately failing tests.' : '.'));

    const summary = readSummary(summaryFile);
    const state = sandbox.state();
    printZephyr(state.zephyr, summary && summary.targets.zephyr, problems);
    printCucumberStudio(state.cucumberstudio, problems);
    printStats(sandbox.stats());

    const publish = []; // what the reporter itself says went wrong: listed first
    if (!summary) publish.push(`the reporter wrote no summary file (${summaryFile})`);
    for (const id of summary ? ['zephyr', 'cucumberstudio'] : []) {
      const t = summary.targets[id];
      if (!t || !t.enabled) publish.push(`${id}: target not enabled in the summary`);
      else {
        for (const e of t.errors) publish.push(`${id}: ${e}`);
        if (t.unsent) publish.push(`${id}: ${t.unsent} result(s) not sent (outbox ${t.outbox})`);
      }
    }
    problems.unshift(...publish);
  } finally {
    await sandbox.close();
  }
  console.log(`\nSummary JSON: ${summaryFile}`);
  if (problems.length) {
    console.error(`\nDEMO FAILED: the publish did not work as expected:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    return 1;
  }
  console.log('\nDemo OK: both services hold exactly one result per mapped key, with the expected statuses.');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`DEMO FAILED: ${error && error.stack ? error.stack : error}`);
    process.exit(1);
  },
);
