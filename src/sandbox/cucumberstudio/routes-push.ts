/**
 * The token routes of the CucumberStudio stand-in (spec §5): outside `/api`, authenticated only by the project's
 * numeric secret token in the path, no header checked (the vendor's CLI sends none but User-Agent). A wrong token
 * answers 404 with an empty body on every route, as the service does; so does a token route the sandbox does not
 * serve (`report_global_failure`, the project exports). Answers are not JSON:API and are never restyled.
 * Counted in the module's rate limit like every call (the core counts every request of the module).
 */
import type { SandboxRequest, SandboxResponse } from '../types';
import { isMultipart } from './attachments';
import { publicationRun, publicationRuns } from './publication';
import { applyPush, text } from './push';
import { PUSH_FORMATS, READ_FORMATS, readReport, type ReadFormat, type ReportedTest } from './push-formats';
import type { CucumberStudioStore } from './store';

const TOKEN_ROUTE = /^\/(publication|import_test_results|import_test_reports|report_global_failure)(\/|$)/;

export function isTokenRoute(rawPath: string): boolean {
  return TOKEN_ROUTE.test(rawPath);
}

function segmentsOf(rawPath: string): string[] {
  return rawPath
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s; // a malformed escape is just a segment that matches nothing
      }
    });
}

function notFound(route: string): SandboxResponse {
  return { status: 404, route, body: undefined };
}

/** 404 (empty body) unless the path's token is the project's; null when the request may proceed. */
export function checkToken(req: SandboxRequest, token: string): SandboxResponse | null {
  const [kind, sent] = segmentsOf(req.rawPath);
  return sent === token ? null : notFound(`${req.method} /${kind}/:token (wrong token)`);
}

/** Serves a token route whose token was checked. */
export async function dispatchToken(store: CucumberStudioStore, req: SandboxRequest): Promise<SandboxResponse> {
  const [kind, , ...rest] = segmentsOf(req.rawPath);
  if (req.method === 'GET' && kind === 'publication' && rest.length === 1 && rest[0] === 'test_runs') {
    return publicationRuns(store, 'GET /publication/:token/test_runs');
  }
  if (req.method === 'GET' && kind === 'publication' && rest.length === 2 && rest[0] === 'test_run') {
    const route = 'GET /publication/:token/test_run/:trid';
    if (!/^\d{1,15}$/.test(rest[1])) return notFound(route);
    return publicationRun(store, Number(rest[1]), route, req.query.get('filter_status'));
  }
  if (req.method === 'POST' && kind === 'import_test_results' && rest.length === 1) return push(store, req, rest[0]);
  return notFound(`${req.method} /${kind}/:token (unknown)`);
}

async function push(store: CucumberStudioStore, req: SandboxRequest, format: string): Promise<SandboxResponse> {
  const route = 'POST /import_test_results/:token/:format';
  if (!(PUSH_FORMATS as readonly string[]).includes(format)) {
    // The service's own words (#120).
    return text(422, `Unknown format ${format}. Available formats are:\n${PUSH_FORMATS.map((f) => ` - ${f}`).join('\n')}`, route);
  }
  if (!(READ_FORMATS as readonly string[]).includes(format)) {
    return text(501, `The sandbox reads ${READ_FORMATS.join(' and ')} reports, not ${format}`, route);
  }
  const files = await filesOf(req);
  if ('error' in files) return text(files.status, files.error, route);
  const reported: ReportedTest[] = [];
  for (const file of files.list) {
    const read = readReport(format as ReadFormat, file.text);
    if ('error' in read) return text(422, `${file.name} is not a ${format} report: ${read.error}`, route);
    reported.push(...read);
  }
  const q = req.query;
  const blankToNull = (v: string | null) => (v === null || v.trim() === '' ? null : v);
  return applyPush(
    store,
    {
      executionEnvironment: blankToNull(q.get('execution_environment')),
      buildId: blankToNull(q.get('build_id')),
      buildName: blankToNull(q.get('build_name')),
    },
    reported,
    route,
  );
}

/** Every part of the multipart body that carries a file, whatever its name (the CLI names each part after its file). */
async function filesOf(req: SandboxRequest): Promise<{ list: Array<{ name: string; text: string }> } | { status: number; error: string }> {
  const contentType = String(req.headers['content-type'] ?? '');
  if (!isMultipart(req)) {
    return {
      status: 400,
      error: `Send the result files as multipart/form-data, one part per file (got content-type "${contentType || 'none'}")`,
    };
  }
  let form: FormData;
  try {
    form = await new Response(req.rawBytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return { status: 400, error: 'The multipart/form-data body could not be read (boundary or framing is wrong)' };
  }
  const list: Array<{ name: string; text: string }> = [];
  for (const [, value] of form.entries()) {
    if (typeof value !== 'string') list.push({ name: value.name || 'file', text: await value.text() });
  }
  if (list.length === 0) return { status: 422, error: 'No result file in the request: send each file in a part with a filename' };
  return { list };
}
