/**
 * The registry: the one place that lists the services. Adding a service is a folder under
 * src/targets/ exporting a TargetDefinition, plus one line here (and its options key in
 * TmsReporterOptions, for editors' type checking).
 */
import type { TargetDefinition } from '../kit/target';
import type { GeneralOptions } from '../shared/options';
import { cucumberstudio } from './cucumberstudio/definition';
import type { CucumberStudioOptions } from './cucumberstudio/config';
import { zephyr } from './zephyr/definition';
import type { ZephyrOptions } from './zephyr/config';
import { xray } from './xray/definition';
import type { XrayOptions } from './xray/config';

export const TARGETS: readonly TargetDefinition[] = [
  zephyr as TargetDefinition,
  cucumberstudio as TargetDefinition,
  xray as TargetDefinition,
];

export type { ZephyrOptions, CucumberStudioOptions, XrayOptions };
export type { StatusMapOption } from '../kit/config-fields';
export type { GeneralOptions } from '../shared/options';
/** For the benchmark's naive baseline, which signs its own Zephyr requests. */
export { signRequest } from './zephyr/jwt';

/** Options of `['playwright-tms-reporter', { ... }]`. */
export interface TmsReporterOptions extends GeneralOptions {
  zephyr?: ZephyrOptions;
  cucumberstudio?: CucumberStudioOptions;
  xray?: XrayOptions;
}
