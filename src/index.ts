import TmsReporter from './playwright/reporter';

export default TmsReporter;
export { TmsReporter };
// The option types of every service, and TmsReporterOptions, come from the registry.
export type * from './targets';
export type { RunSummary, TargetSummary, Outcome } from './shared/model';
