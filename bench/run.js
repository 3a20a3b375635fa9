'use strict';
/**
 * `npm run bench` (= `npm run build && node bench/run.js`): runs every figure against the sandbox,
 * prints a table and writes bench/results.json. `BENCH_QUICK=1` shortens everything (smoke run).
 * `BENCH_ONLY=1,2,6` runs only some figures. See bench/README.md.
 */
const fs = require('node:fs');
const path = require('node:path');
const L = require('./lib');
const P = require('./publisher');
const R = require('./playwright-runs');
const O = require('./overhead');
const T = require('./tail');
const SF = require('./statuses-first');
const B = require('./bytes');
const C = require('./reporter-cpu');
const M = require('./matrix');
const X = require('./xray');
const PU = require('./push');

const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;
const log = (line) => process.stderr.write(`${line}\n`);

/** Figure 7: the bad-input matrix is a vitest file in `npm test`; the bench runs it and reports its table. */
async function badInput() {
  const report = path.join(L.tmpDir('bad-input'), 'bad-input-report.json');
  const vitest = require.resolve('vitest/vitest.mjs', { paths: [L.REPO] });
  const res = await L.exec(process.execPath, [vitest, 'run', 'test/integration/bad-input.test.ts'], {
    cwd: L.REPO,
    env: { ...process.env, CI: '1', BAD_INPUT_REPORT: report },
  });
  if (!fs.existsSync(report)) throw new Error(`bad-input test wrote no report:\n${res.output.slice(-1500)}`);
  const { cases } = JSON.parse(fs.readFileSync(report, 'utf8'));
  const config = cases.filter((c) => c.kind === 'config');
  const response = cases.filter((c) => c.kind === 'response');
  log(
    `  ${cases.length} cases (${config.length} config, ${response.length} service answers): ${cases.filter((c) => c.ok).length} pass, ${cases.filter((c) => !c.ok).length} known defects; vitest exit ${res.exitCode}`,
  );
  return {
    vitestExitCode: res.exitCode,
    config: config.length,
    response: response.length,
    passing: cases.filter((c) => c.ok).length,
    defects: cases.filter((c) => !c.ok).length,
    cases,
  };
}

/** @type {Array<[string, string, (log: (line: string) => void) => Promise<any>]>} */
const FIGURES = [
  ['1', 'Zephyr calls and publish tail vs naive (20 ms latency, 1 % failing)', P.zephyrCalls],
  ['2', 'Zephyr under a rate limit (30 per s)', P.zephyrRateLimit],
  ['3', 'CucumberStudio calls per result and throughput (200 per 6 s)', P.csThroughput],
  ['4', 'Reporter overhead on a real playwright run', O.overhead],
  ['5', 'Publisher memory', P.memory],
  ['6', 'Fault matrix (real runs, exact state)', R.faultMatrix],
  ['7', 'Bad input matrix (test/integration/bad-input.test.ts)', badInput],
  ['8', 'Tail under real limits (time-scaled 30×)', T.tailUnderLimits],
  ['9', 'CucumberStudio bytes downloaded for 20 mapped scenarios vs the project size', B.csBytes],
  ['10', "The reporter's own CPU, phase by phase (a fresh process, synthetic tests)", C.reporterCpu],
  [
    '11',
    'Statuses before evidence: 2,000 quick tests, 10 % failing with a comment and a file, default pacing (time-scaled 30×)',
    SF.statusesFirst,
  ],
  ['12', 'The test matrix: T tests x 3 projects, merge vs split, and worst wins across a CI build (20 ms latency, no limit)', M.matrix],
  ['13', 'Xray: calls, bytes sent and tail for 2,000 tests, 1 % failing, no attachments (time-scaled 30×)', X.xrayFigure],
  ['14', "CucumberStudio's bulk push: wall of 2,000 trivial tests on both services at the real limits, calls, tail", PU.pushFigure],
];

const yes = (b) => (b === undefined ? '' : b ? 'met' : 'MISSED');
const pct = (x) => `${(x * 100).toFixed(1)} %`;

function table(results) {
  const rows = [];
  const add = (fig, what, value, target, verdict) => rows.push([fig, what, value, target, verdict]);
  const f1 = results['1'];
  if (Array.isArray(f1)) {
    for (const r of f1) {
      add(
        '1',
        `Zephyr N=${r.n}: calls (per 1,000)`,
        `${r.calls} (${r.callsPer1000})${r.exact ? '' : ' NOT EXACT'}`,
        r.n === 2000 ? `≤ ${150 + r.failed}` : '',
        r.n === 2000 ? yes(r.target.calls) : '',
      );
      if (r.attachmentCalls !== undefined)
        add(
          '1',
          `Zephyr N=${r.n}: attachment uploads (apart)`,
          `${r.attachmentCalls} (${r.failed} failed tests × 1 file)`,
          `= ${r.failed}`,
          yes(r.attachmentCalls === r.failed),
        );
      add(
        '1',
        `Zephyr N=${r.n}: tail after last result`,
        `${(r.tailMs / 1000).toFixed(2)} s`,
        r.n === 2000 ? '≤ 5 s' : '',
        r.n === 2000 ? yes(r.target.tail) : '',
      );
      add(
        '1',
        `Zephyr N=${r.n}: naive calls / tail${r.naive.sampled ? ` (est. from ${r.naive.sampled})` : ''}`,
        `${r.naive.calls} / ${(r.naive.tailMs / 1000).toFixed(1)} s`,
        '',
        '',
      );
      add('1', `Zephyr N=${r.n}: ratio calls / tail vs naive`, `${r.callRatio}× / ${r.tailRatio}×`, '≥ 25×', yes(r.target.ratios));
    }
  }
  for (const r of results['2'] ?? []) {
    add(
      '2',
      `rate limit ${r.limit}, N=${r.n}, ${r.variant}`,
      `${pct(r.throughputOfLimit)} of limit, ${r.got429}× 429, lost ${r.lost}`,
      '≥ 90 %, lost 0',
      `${yes(r.target.throughput)}/${yes(r.target.lost)}`,
    );
  }
  const f3 = results['3'];
  if (f3 && !f3.error) {
    add(
      '3',
      `CucumberStudio N=${f3.n}: calls per result`,
      `${f3.callsPerResult} (${f3.n} + ${f3.constantCalls})`,
      '≤ 1 + O(1)',
      yes(f3.target.callsPerResult),
    );
    add(
      '3',
      'CucumberStudio throughput vs 200/6 s',
      `${pct(f3.throughputOfLimit)}, ${f3.got429}× 429, lost ${f3.lost}`,
      '≥ 90 %, few 429',
      `${yes(f3.target.throughput)}/${yes(f3.target.few429)}`,
    );
  }
  const f4 = results['4'];
  if (f4 && !f4.error) {
    add(
      '4',
      `overhead N=${f4.n}, ${f4.reps} reps: wall with/without`,
      `median ${f4.medianWallRatio} (range ${f4.wallRatioRange.join('–')}; baseline run-to-run ${f4.baselineRunToRunSpread?.join('–') ?? 'n/a'})`,
      '≤ 1.02',
      yes(f4.target.wall),
    );
    add(
      '4',
      'overhead: CPU time with/without; the tms reporter onEnd',
      `median ${f4.medianCpuRatio} (${f4.medianCpuSWith} vs ${f4.medianCpuSWithout} s; sandbox ${f4.medianSandboxCpuS} s); onEnd ${f4.medianOnEndMs} ms`,
      '',
      '',
    );
    if (f4.phaseDeltaMs)
      add(
        '4',
        'overhead: where it goes, with − without (median ms)',
        `load ${f4.phaseDeltaMs.loadMs}, tests ${f4.phaseDeltaMs.testsMs} (of ${f4.medianTestsMsWithout}), end ${f4.phaseDeltaMs.endMs}`,
        '',
        '',
      );
    add(
      '4',
      'overhead: peak RSS with/without',
      `median ${f4.medianRssRatio} (${f4.medianPeakRssMBWith} vs ${f4.medianPeakRssMBWithout} MB)`,
      '',
      '',
    );
    const d = f4.defaultWorkers;
    if (d)
      add(
        '4',
        `  Playwright's default workers, ${d.reps} reps: wall with/without`,
        `median ${d.medianWallRatio} (range ${d.wallRatioRange.join('–')}; baseline run-to-run ${d.baselineRunToRunSpread?.join('–') ?? 'n/a'}); CPU ${d.medianCpuRatio}; onEnd ${d.medianOnEndMs} ms`,
        '',
        '',
      );
  }
  const f5 = results['5'];
  if (f5 && !f5.error) {
    const young = (r) => `young gen ${r.youngAtBaseline.physicalMB} MB at start`;
    add(
      '5',
      `publisher memory N=${f5.n}, young generation as Playwright's runner's`,
      `peak RSS +${f5.rssAboveBaselineMB} MB, peak heap +${f5.heapAboveBaselineMB} MB, live +${f5.liveHeapAfterGcMB} MB (${young(f5)})`,
      '≤ 50 MB',
      yes(f5.target.rss),
    );
    add(
      '5',
      `  Playwright's runner at onBegin (${f5.host.tests} tests); a fresh process`,
      `young gen ${f5.host.begin.physicalMB} MB; fresh: peak RSS +${f5.cold.rssAboveBaselineMB} MB (${young(f5.cold)})`,
      '',
      '',
    );
  }
  for (const r of results['6'] ?? []) {
    const c = (x) => `${x.delivered}/${x.expected}, dup ${x.duplicates}, lost ${x.lost}`;
    add(
      '6',
      `${r.cell}${r.replayed ? ' (+replay)' : ''}`,
      r.push
        ? `CS push ${c(r.cucumberstudio.final)}`
        : `Z ${c(r.zephyr.final)}; CS ${c(r.cucumberstudio.final)}${r.xray ? `; X ${c(r.xray.final)}` : ''}`,
      '100 % / 0 / 0',
      yes(r.target.exact && r.target.noLeak && r.target.outboxHeldFinished !== false),
    );
  }
  const f7 = results['7'];
  if (f7 && !f7.error) {
    add(
      '7',
      `bad input: ${f7.config} config + ${f7.response} service-answer cases`,
      `${f7.passing} pass, ${f7.defects} known defects`,
      '≥ 20 + ≥ 10, all clear',
      yes(f7.defects === 0),
    );
    for (const c of f7.cases)
      add(
        '7',
        `  ${c.kind}: ${c.title}`,
        c.ok
          ? (c.line ?? '').replace('[tms-reporter] ', '').slice(0, 110)
          : `DEFECT: ${(c.got ?? '').replace('[tms-reporter] ', '').slice(0, 100)}`,
        '',
        c.ok ? 'ok' : 'defect',
      );
  }
  const f8 = results['8'];
  if (f8 && !f8.error) {
    for (const r of f8.rows) {
      const who = r.service === 'zephyr' ? `Zephyr, ${r.shards === 1 ? '1 process' : `${r.shards} shards on one key`}` : 'CucumberStudio';
      const measured = `tail ${r.tailRealS} s (real-eq${r.reps ? `, median of ${r.reps.length}: ${r.reps.map((x) => x.tailRealS).join('/')}` : ''}), ${r.calls} calls, ${r.got429}× 429, lost ${r.lost}, dup ${r.duplicates}`;
      if (r.target)
        add(
          '8',
          `tail under real limits, ${who}`,
          measured,
          r.shards > 1 ? '≤ 10 s, 0/0, ≤ 5×429' : '≤ 10 s, 0/0',
          `${yes(r.target.tail)}/${yes(r.target.exact)}${r.target.few429 === undefined ? '' : `/${yes(r.target.few429)}`}`,
        );
      else add('8', `  baseline (all at finish), ${who}`, measured, '', '');
    }
  }
  const f9 = results['9'];
  if (f9 && !f9.error) {
    for (const r of f9.rows)
      add(
        '9',
        `CucumberStudio bytes, ${r.mapped} mapped in ${r.scenarioCount.toLocaleString('en')} scenarios`,
        `${(r.bytesOut / 1024).toFixed(1)} KB, ${r.calls} calls (whole scenario list: ${(r.wholeScenarioListBytes / 1024).toFixed(0)} KB)${r.exact ? '' : ' NOT EXACT'}`,
        '≤ 200 KB, flat',
        `${yes(r.target.bytes)}/${yes(r.target.exact)}`,
      );
    add('9', 'bytes, 20,000 vs 200 scenarios', `×${f9.growth}`, '', '');
  }
  const f11 = results['11'];
  if (f11 && !f11.error) {
    for (const r of f11.rows) {
      add(
        '11',
        `statuses first, 2,000 tests in ${r.runRealS / 60} min: every status in / everything in`,
        `${r.statusesS ?? '—'} s / ${r.everythingS === null ? `cut at publishTimeout, ${r.leftInOutbox.results} results + ${r.leftInOutbox.files} files kept` : `${r.everythingS} s`} after the last test (${r.calls} calls, ${r.got429}× 429)`,
        '≤ 30 s / —',
        yes(r.target.statuses),
      );
      add(
        '11',
        '  then replay: statuses / comments / files, duplicates',
        `${r.replay.after.statuses} / ${r.replay.after.comments} / ${r.replay.after.files} of ${r.n} / ${r.failed} / ${r.failed}, ${r.replay.after.duplicateFiles} duplicate files`,
        'all, 0',
        yes(r.target.exactAfterReplay),
      );
    }
  }
  const f12 = results['12'];
  if (f12 && !f12.error) {
    for (const r of f12.rows)
      add(
        '12',
        `matrix ${f12.tests} x ${f12.projects}: ${r.service} ${r.projects} (${r.build})`,
        `${r.results} results, ${r.calls} calls (≈ ${r.atRealLimitMin} min at the real limit), tail ${r.tailMs} ms${r.errors.length ? ' ERRORS' : ''}`,
        '',
        '',
      );
  }
  const f13 = results['13'];
  if (f13 && !f13.error) {
    add(
      '13',
      `Xray calls, N=${f13.n}, ${f13.failed} failing (${f13.got429}× 429, lost ${f13.lost})`,
      `${f13.calls}`,
      '≤ 80',
      yes(f13.calls <= 80 && f13.lost === 0),
    );
    add('13', '  request bytes sent / answer bytes', `${f13.requestBytes} / ${f13.answerBytes}`, '', '');
    add('13', '  tail after the last test (real s)', `${f13.tailRealS} s (${f13.callsInTail} calls)`, '≤ 10 s', yes(f13.tailRealS <= 10));
  }
  if (results['14'] && !results['14'].error) PU.rows14(results['14'], add, yes);
  const f10 = results['10'];
  if (f10 && !f10.error) {
    const m = f10.medians;
    add(
      '10',
      `reporter CPU, N=${f10.n} (median of ${f10.runs}, minus the driver's): total / per test`,
      `${f10.totalMs} ms / ${f10.perTestUs} µs (onTestEnd ${Math.round(f10.withReporter.onTestEndUs)} µs, ${Math.round(f10.driver.onTestEndUs)} µs without a target)`,
      '',
      '',
    );
    add(
      '10',
      '  load / onBegin / preparation / results / end (ms of CPU)',
      `${Math.round(m.load)} / ${Math.round(m.begin)} / ${Math.round(m.prepare)} / ${Math.round(m.results)} / ${Math.round(m.end)}`,
      '',
      '',
    );
  }
  for (const [id, v] of Object.entries(results)) if (v && v.error) add(id, 'ERROR', v.error.slice(0, 140), '', 'MISSED');
  const widths = [3, 70, 80, 22, 10];
  const line = (cells) =>
    cells
      .map((c, i) =>
        String(c)
          .padEnd(widths[i])
          .slice(0, Math.max(widths[i], String(c).length)),
      )
      .join(' | ');
  return [line(['fig', 'figure', 'measured', 'target', 'verdict']), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join(
    '\n',
  );
}

async function main() {
  const started = Date.now();
  const results = {};
  const timings = {};
  for (const [id, title, fn] of FIGURES) {
    if (ONLY && !ONLY.has(id)) continue;
    log(`figure ${id}: ${title}${L.QUICK ? ' (quick)' : ''}`);
    const t = Date.now();
    try {
      results[id] = await fn(log);
    } catch (e) {
      results[id] = { error: String(e instanceof Error ? e.message : e) };
      log(`  ERROR: ${results[id].error}`);
    }
    timings[id] = Math.round((Date.now() - t) / 1000);
  }
  const out = {
    machine: L.machine(),
    durationSeconds: Math.round((Date.now() - started) / 1000),
    secondsPerFigure: timings,
    figures: results,
  };
  fs.writeFileSync(path.join(__dirname, 'results.json'), `${JSON.stringify(out, null, 2)}\n`);
  const text = table(results);
  process.stdout.write(
    `\n${text}\n\n${out.machine.cpus} CPUs (${out.machine.cpuModel}), Node ${out.machine.node}, Playwright ${out.machine.playwright}; ${out.durationSeconds} s in total${L.QUICK ? ' (BENCH_QUICK=1)' : ''}. Written to bench/results.json\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`${e?.stack ?? e}\n`);
  process.exit(1);
});
