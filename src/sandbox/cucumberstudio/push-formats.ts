/**
 * Result files of the bulk push (spec §5.3): what each format says about each test it reports. The service's own
 * list of formats is in `PUSH_FORMATS` (its 422 names them); the sandbox reads `cucumber-json` (the format that
 * carries step statuses) and `junit`. The other names are formats the service knows: the sandbox answers them 501
 * (a documented choice, so that no client test passes against a format the sandbox only pretends to read).
 *
 * Status mapping ([suggest] in the reference): cucumber's passed / failed / skipped / undefined map to themselves,
 * `pending` → `wip`, `ambiguous` → `failed`, any other word → `undefined`; the test's status is its worst step or
 * hook (failed > undefined > wip > skipped > passed); a scenario with no step and no hook is `undefined`.
 * Background steps (cucumber-json `type: "background"` elements) belong to the scenario after them and come first
 * in its step statuses; hooks (`before` / `after`, or steps marked `hidden` as cucumber-js writes them) count for
 * the test's status, not as steps. junit: `<failure>` / `<error>` → failed, `<skipped>` → skipped, else passed; no steps.
 */
import type { Status } from './model';

export const PUSH_FORMATS = ['android-studio', 'cucumber-json', 'junit', 'mstest', 'nunit', 'robot', 'tap'] as const;
export const READ_FORMATS = ['cucumber-json', 'junit'] as const;
export type ReadFormat = (typeof READ_FORMATS)[number];

/** One test as a result file reports it. */
export interface ReportedTest {
  /** The test's name in the report: where the uid is looked for. */
  name: string;
  status: Status;
  /** Per step, in order (cucumber-json only). */
  stepStatuses?: Status[];
  /** The failure text the report carries, if any. */
  failureText?: string;
}

const WORST_FIRST: Status[] = ['failed', 'undefined', 'wip', 'skipped', 'passed'];

export function cucumberStatus(word: unknown): Status {
  if (word === 'passed' || word === 'failed' || word === 'skipped' || word === 'undefined') return word;
  if (word === 'pending') return 'wip';
  if (word === 'ambiguous') return 'failed';
  return 'undefined';
}

function worst(statuses: Status[]): Status {
  if (statuses.length === 0) return 'undefined';
  return WORST_FIRST.find((s) => statuses.includes(s)) ?? 'undefined';
}

/** The tests a file reports, or the reason it cannot be read. */
export function readReport(format: ReadFormat, text: string): ReportedTest[] | { error: string } {
  return format === 'cucumber-json' ? readCucumberJson(text) : readJunit(text);
}

interface CucumberStep {
  hidden?: unknown;
  result?: { status?: unknown; error_message?: unknown };
}
interface CucumberElement {
  name?: unknown;
  type?: unknown;
  steps?: CucumberStep[];
  before?: CucumberStep[];
  after?: CucumberStep[];
}

function readCucumberJson(text: string): ReportedTest[] | { error: string } {
  let features: unknown;
  try {
    features = JSON.parse(text);
  } catch (e) {
    return { error: `not JSON (${(e as Error).message})` };
  }
  if (!Array.isArray(features)) return { error: 'a cucumber-json report is an array of features' };
  const tests: ReportedTest[] = [];
  for (const feature of features) {
    const elements = (feature as { elements?: unknown })?.elements;
    if (elements === undefined) continue;
    if (!Array.isArray(elements)) return { error: 'a feature\'s "elements" must be an array' };
    let background: CucumberStep[] = [];
    for (const element of elements as CucumberElement[]) {
      if (typeof element !== 'object' || element === null) return { error: 'every element must be an object' };
      const steps = Array.isArray(element.steps) ? element.steps : [];
      if (element.type === 'background') {
        background = steps;
        continue;
      }
      // cucumber-js writes hooks as `hidden` steps, cucumber-jvm/ruby as `before` / `after`: hooks either way.
      const listed = [...background, ...steps];
      background = [];
      const all = listed.filter((s) => !s?.hidden);
      const stepStatuses = all.map((s) => cucumberStatus(s?.result?.status));
      const hooks = [...(element.before ?? []), ...listed.filter((s) => s?.hidden), ...(element.after ?? [])];
      const failing = [...all, ...hooks].find((s) => typeof s?.result?.error_message === 'string');
      tests.push({
        name: typeof element.name === 'string' ? element.name : '',
        status: worst([...stepStatuses, ...hooks.map((h) => cucumberStatus(h?.result?.status))]),
        stepStatuses,
        ...(failing ? { failureText: failing.result?.error_message as string } : {}),
      });
    }
  }
  return tests;
}

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-f]+);/gi, (_, e: string) => {
    const named: Record<string, string> = { lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' };
    if (named[e.toLowerCase()]) return named[e.toLowerCase()];
    return String.fromCodePoint(e[1].toLowerCase() === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
}

function attribute(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(tag);
  return m ? unescapeXml(m[2] ?? m[3]) : undefined;
}

/** junit XML, read with the few rules a junit report needs (testcase elements, their failure / error / skipped). */
function readJunit(text: string): ReportedTest[] | { error: string } {
  if (!/<testsuites?\b/.test(text)) return { error: 'a junit report has a <testsuites> or <testsuite> element' };
  const tests: ReportedTest[] = [];
  const testcase = /<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const m of text.matchAll(testcase)) {
    const [, attrs, , inner = ''] = m;
    const name = attribute(attrs, 'name');
    if (name === undefined) return { error: 'a <testcase> has no name' };
    const failure = /<(failure|error)\b([^>]*?)(\/>|>([\s\S]*?)<\/\1>)/.exec(inner);
    const skipped = /<skipped\b/.test(inner);
    const failureText = failure
      ? [attribute(failure[2], 'message'), failure[4] && unescapeXml(failure[4].replace(/^<!\[CDATA\[|\]\]>$/g, '')).trim()]
          .filter(Boolean)
          .join('\n')
      : undefined;
    tests.push({
      name,
      status: failure ? 'failed' : skipped ? 'skipped' : 'passed',
      ...(failureText ? { failureText } : {}),
    });
  }
  return tests;
}
