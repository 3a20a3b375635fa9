import { withHint } from '../../http/errors';
import { checkStep, type CheckLine } from '../../kit/target';
import type { ZephyrClient, ZephyrCycle, ZephyrStatus } from './client';
import { PROJECT_HINT, type ZephyrConfig } from './config';
import { resolveStatusMap, statusName } from './statuses';

/** The `check` command for Zephyr: read-only, one line per setting, stops where later checks depend on a failed one. */
export async function checkZephyr(cfg: ZephyrConfig, client: ZephyrClient): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  let statuses: ZephyrStatus[] = [];
  const { projectId, versionId, cycleId, cycleName } = cfg;
  const signed = await checkStep(lines, async () => {
    statuses = await client.statuses();
    return 'credentials and request signing (qsh round-trip) accepted';
  });
  if (!signed) return lines;
  const { byOutcome, warnings } = resolveStatusMap(cfg.statusMap, statuses, false);
  for (const w of warnings) lines.push({ ok: false, text: w });
  if (!warnings.length)
    lines.push({
      ok: true,
      text: `statuses: ${Object.entries(byOutcome)
        .map(([o, id]) => `${o} → ${statusName(statuses, id)}`)
        .join(', ')}`,
    });
  let cycles: ZephyrCycle[] = [];
  const projectOk = await checkStep(lines, async () => {
    cycles = await withHint(client.searchCycles(projectId, versionId), PROJECT_HINT(projectId, versionId));
    return `project ${projectId} and version ${versionId} found`;
  });
  if (!projectOk) return lines;
  if (cycleId) {
    const hint = `ZEPHYR_CYCLE_ID (zephyr.cycleId) = ${cycleId}`;
    await checkStep(
      lines,
      async () =>
        `cycle ${cycleId} ("${(await withHint(client.getCycle(cycleId, projectId, versionId), hint)).name}") found (ZEPHYR_CYCLE_ID)`,
    );
  } else {
    const found = cycles.find((c) => c.name === cycleName && String(c.id) !== '-1');
    lines.push({
      ok: true,
      text: found
        ? `cycle "${cycleName}" exists (id ${found.id}) and will be reused`
        : `cycle "${cycleName}" does not exist yet and will be created`,
    });
  }
  return lines;
}
