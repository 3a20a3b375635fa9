import { resolveConfig } from './config';
import { createHttp } from './http/client';
import type { TargetId } from './model';
import { createPrinter } from './output';
import { createTargets } from './targets';

/**
 * `cycle create --name N` / `test-run create --name N`: find-or-create the container and print its id
 * on stdout (nothing else), for pipelines that create it in a setup job and pass
 * ZEPHYR_CYCLE_ID / CUCUMBERSTUDIO_TEST_RUN_ID to the shards.
 */
export async function createContainer(target: TargetId, name: string | undefined, env: NodeJS.ProcessEnv): Promise<number> {
  const config = resolveConfig({}, env);
  const printer = createPrinter(config.secrets, config.debug);
  for (const p of config.problems) printer.error(p);
  const envName = target === 'zephyr' ? 'ZEPHYR' : 'CUCUMBERSTUDIO';
  if (target === 'zephyr') {
    if (!config.zephyr) return fail(printer, `Zephyr is not configured (${envName}_ACCESS_KEY, ${envName}_SECRET_KEY, …)`);
    config.zephyr.cycleId = undefined;
    if (name) config.zephyr.cycleName = name;
    config.cucumberstudio = undefined;
  } else {
    if (!config.cucumberstudio) return fail(printer, `CucumberStudio is not configured (${envName}_UID, ${envName}_ACCESS_TOKEN, …)`);
    config.cucumberstudio.testRunId = undefined;
    if (name) config.cucumberstudio.testRunName = name;
    config.zephyr = undefined;
  }
  const http = createHttp();
  try {
    const [t] = createTargets(config, { send: http.send });
    const c = await t.begin([]);
    await t.close();
    printer.info(`${t.label}: ${t.containerKind} "${c.name}" ${c.reused ? 'exists' : 'created'}; id:`);
    process.stdout.write(`${c.id}\n`);
    return 0;
  } catch (error) {
    return fail(printer, (error as Error).message);
  } finally {
    await http.close();
  }
}

function fail(printer: ReturnType<typeof createPrinter>, message: string): number {
  printer.error(message);
  return 1;
}
