import { resolveConfig } from '../config/config';
import { createHttp } from '../http/client';
import { LaneSet } from '../kit/lanes';
import type { TargetDefinition } from '../kit/target';
import { createPrinter } from '../shared/output';

/**
 * `cycle create --name N` / `test-run create --name N`: find-or-create the container and print its id
 * on stdout (nothing else), for pipelines that create it in a setup job and pass its id to the shards.
 * The name goes into resolution (a configured id is ignored: this command creates by name).
 */
export async function createContainer(definition: TargetDefinition, name: string | undefined, env: NodeJS.ProcessEnv): Promise<number> {
  // Said of the flag it came from (the settings' own check would name the env var of a configured name).
  if (name !== undefined && name.length > 255) {
    process.stderr.write(`[tms-reporter] --name: is longer than 255 characters (${name.length})\n`);
    return 1;
  }
  const config = resolveConfig({
    definitions: [definition],
    options: {},
    env,
    overrides: { [definition.id]: { container: { id: null, name } } },
  });
  const printer = createPrinter(config.secrets, config.debug);
  for (const p of config.problems) printer.error(p);
  const [resolved] = config.targets;
  if (!resolved) {
    const invalid = config.invalid.some((d) => d.id === definition.id);
    printer.error(
      invalid ? `${definition.label}: settings invalid (see above)` : `${definition.label} is not configured (${definition.enableHint}, …)`,
    );
    return 1;
  }
  // Split mode makes one container per Playwright project, each found or made by the run (Xray: "<summary> <project>"),
  // and takes no id for them: the one this would make is never used, and its id would make the run refuse its settings.
  const perPlace = definition.containerPerPlace;
  if (config.projects === 'split' && perPlace) {
    const { containerName } = definition.journalMeta(resolved.config);
    const kind = definition.containerKind;
    printer.error(
      `${definition.label}: nothing created — projects: 'split' (PW_TMS_PROJECTS=split) makes one ${kind} per Playwright project, ` +
        `"${containerName} <project>", found or created by the run itself, which takes no ${definition.containerSetting?.what ?? 'id'}: ` +
        `give the run ${perPlace.nameSetting} = "${containerName}" instead, or use projects: 'merge'`,
    );
    return 1;
  }
  // A dry run sends nothing, this command included: it says what it would make, and prints no id (the shards' dry runs need none).
  if (config.dryRun) {
    const { containerName } = definition.journalMeta(resolved.config);
    printer.info(`${definition.label}: dry run — would find or create ${definition.containerKind} "${containerName}"; nothing created`);
    return 0;
  }
  const http = createHttp();
  try {
    const lanes = new LaneSet();
    const target = definition.create(resolved.config, { send: http.send, secrets: config.secrets, lanes });
    const c = await target.begin({ knownKeys: [] });
    await c.preparation;
    lanes.close();
    printer.info(`${definition.label}: ${definition.containerKind} "${c.name}" ${c.reused ? 'exists' : 'created'}; id:`);
    process.stdout.write(`${c.id}\n`);
    return 0;
  } catch (error) {
    printer.error((error as Error).message);
    return 1;
  } finally {
    await http.close();
  }
}
