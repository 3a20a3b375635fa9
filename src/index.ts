import TmsReporter from './reporter';

export default TmsReporter;
export { TmsReporter };
export type { TmsReporterOptions, ZephyrOptions, CucumberStudioOptions, StatusMapOption } from './config';
export type { RunSummary, TargetSummary, Outcome } from './model';
