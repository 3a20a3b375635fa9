import * as fs from 'node:fs';
import * as path from 'node:path';
import type { PlaceSummary, RunSummary, TargetSummary } from './model';
import { replayCommand } from './output';

/** `<label>: cycle "Nightly" (id …) — 120 published: PASS 110, FAIL 8; 3 tests not mapped`. */
export function summaryLine(s: TargetSummary): string {
  const label = s.label ?? s.target;
  const container = s.container
    ? `${s.container.kind}${s.container.name !== undefined ? ` "${s.container.name}"` : ''}${s.container.id ? ` (id ${s.container.id})` : ''}`
    : placeContainers(s);
  const cut = `cut short by ${s.stoppedBy ?? 'publishTimeout'}`;
  const where = s.dryRun
    ? `dry run${container ? ` for ${container}` : ''}`
    : container
      ? `${container}${s.cutShort ? `, ${cut}` : ''}`
      : s.cutShort
        ? cut
        : s.published || s.unsent || s.errors.length
          ? 'stopped before its first result'
          : 'nothing mapped here';
  const counts = countsText(s.countsByStatus);
  const parts = [
    `${label}: ${where} — ${s.dryRun ? 'would publish' : ''}${s.dryRun ? ' ' : ''}${s.published}${s.dryRun ? '' : ' published'}${counts ? `: ${counts}` : ''}`,
  ];
  if (s.unmapped) parts.push(`${s.unmapped} test${s.unmapped === 1 ? '' : 's'} not mapped`);
  // Tests, not keys (what "published" counts): said so, as the two numbers sit side by side.
  if (s.notRun) parts.push(`${s.notRun} test${s.notRun === 1 ? '' : 's'} not run`);
  if (s.partlyRun?.length) {
    const [n, some] = [s.partlyRun.length, s.partlyRun.slice(0, 3).join(', ') + (s.partlyRun.length > 3 ? ', …' : '')];
    parts.push(
      `${n} key${n === 1 ? '' : 's'} published from the tests that ran (others mapped to ${n === 1 ? 'it' : 'them'} did not run): ${some}`,
    );
  }
  if (s.refused) parts.push(`${s.refused} refused by the service (see above; not kept for replay)`);
  const replay = replayCommand(s.outbox && path.dirname(s.outbox));
  // Without a journal path nothing was kept (an outbox that could not be written): say so, not "run replay".
  const kept = s.outbox ? `kept in ${s.outbox}; run ${replay}` : 'not kept: no outbox';
  if (s.unsent) parts.push(`${s.unsent} not sent (${kept})`);
  if (s.verify?.containerStatus) parts.push(`${s.container?.kind ?? 'container'} status: ${s.verify.containerStatus}`);
  const files = s.attachments;
  if (files) {
    const up = files.uploaded + files.present;
    const what = [`${up} attachment${up === 1 ? '' : 's'} uploaded`];
    if (files.skipped.length)
      what.push(`${files.skipped.length} skipped: ${files.skipped.slice(0, 3).join(', ')}${files.skipped.length > 3 ? ', …' : ''}`);
    if (files.failed.length) what.push(`${files.failed.length} not sent (${kept})`);
    parts.push(what.join(', '));
  }
  if (s.link) parts.push(s.link);
  // Split mode: one line per Playwright project under the target's.
  const places = placesOf(s).map(
    ([place, p]) =>
      `  ${place || 'unnamed project'}: ${p.published} published${Object.keys(p.countsByStatus).length ? `: ${countsText(p.countsByStatus)}` : ''}${p.link ? `; ${p.link}` : ''}`,
  );
  return [parts.join('; '), ...places].join('\n');
}

/**
 * Split mode where each project has a container of its own rather than a part of the run's (Xray: a Test Execution
 * per project, the run none): each, key first as a user searches for it —
 * `Test Executions XT-305 "Split run alpha", XT-306 "Split run beta"`.
 */
function placeContainers(s: TargetSummary): string | undefined {
  const own = placesOf(s).flatMap(([, p]) => (p.container ? [p.container] : []));
  if (!own.length) return undefined;
  const named = own.map((c) => [c.id, c.name && c.name !== c.id ? `"${c.name}"` : ''].filter(Boolean).join(' '));
  return `${own[0].kind}${own.length > 1 ? 's' : ''} ${named.join(', ')}`;
}

/** Split mode's projects by name: the order results came in differs from run to run, the line should not. */
function placesOf(s: TargetSummary): Array<[string, PlaceSummary]> {
  return Object.entries(s.byPlace ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function countsText(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

export function writeSummaryFile(file: string, summary: RunSummary): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(summary, null, 2)}\n`);
}

/** A short markdown table for the GitHub Actions job summary. */
export function stepSummaryMarkdown(summary: RunSummary): string {
  const rows = Object.values(summary.targets).map((s) => {
    const counts =
      Object.entries(s.countsByStatus)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || '—';
    const state = s.errors.length ? `⚠️ ${s.errors.length} error(s)` : '✅';
    // A `|` in a name (a workflow called "E2E | nightly") would start a new cell.
    const cell = (text: string) => text.replace(/\|/g, '\\|');
    // Split mode with a container per project (Xray): each of them, as the run has none.
    const own = placesOf(s).flatMap(([, p]) => (p.container ? [p.container] : []));
    const where = s.container ? [s.container] : own;
    const named = where.map((c) => `${c.name ?? ''} (${c.id ?? ''})`).join(', ');
    return `| ${cell(s.label ?? s.target)} | ${where.length ? cell(named) : '—'} | ${s.published} | ${counts} | ${s.unsent} | ${state} |`;
  });
  return [
    '### Test management publish',
    '',
    '| Target | Cycle / run | Published | Statuses | Unsent | State |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
