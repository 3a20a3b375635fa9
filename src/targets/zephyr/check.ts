import { withHint } from '../../http/errors';
import { checkStep, type CheckLine } from '../../kit/target';
import type { ZephyrClient, ZephyrCycle, ZephyrStatus } from './client';
import type { ZephyrConfig } from './config';
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
  let found: ZephyrCycle | undefined;
  const projectOk = await checkStep(lines, async () => {
    found = (await client.cyclesNamed(cycleName, projectId, versionId))[0];
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
    lines.push({
      ok: true,
      text: found
        ? `cycle "${cycleName}" exists (id ${found.id}) and will be reused`
        : `cycle "${cycleName}" does not exist yet and will be created`,
    });
  }
  return lines;
}
