import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunSummary, TargetSummary } from './model';
import { replayCommand } from './output';

/** `<label>: cycle "Nightly" (id …) — 120 published: PASS 110, FAIL 8; 3 tests not mapped`. */
export function summaryLine(s: TargetSummary): string {
  const label = s.label ?? s.target;
  const container = s.container
    ? `${s.container.kind}${s.container.name !== undefined ? ` "${s.container.name}"` : ''}${s.container.id ? ` (id ${s.container.id})` : ''}`
    : undefined;
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
  const places = Object.entries(s.byPlace ?? {}).map(
    ([place, p]) =>
      `  ${place || 'unnamed project'}: ${p.published} published${Object.keys(p.countsByStatus).length ? `: ${countsText(p.countsByStatus)}` : ''}`,
  );
  return [parts.join('; '), ...places].join('\n');
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
    return `| ${cell(s.label ?? s.target)} | ${s.container ? cell(`${s.container.name ?? ''} (${s.container.id ?? ''})`) : '—'} | ${s.published} | ${counts} | ${s.unsent} | ${state} |`;
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
