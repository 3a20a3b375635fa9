/**
 * `POST /api/v2/import/execution/multipart` (§3.3): parts `results` (Xray JSON) and `info` (a Jira create-issue
 * payload plus `xrayFields`). Parsed with the platform's multipart parser (undici's `Response.formData()`).
 * Treated as a creation path — whether it can target an existing execution is not established (§10), so a
 * `testExecutionKey` in `results` is ignored and a new Test Execution is created every time.
 */
import type { SandboxRequest, SandboxResponse } from '../types';
import { xrayError } from './answers';
import { projectOf, stringList } from './create';
import { runImport } from './import';
import type { XrayStore } from './store';

const ROUTE = 'POST /import/execution/multipart';
const XRAY_FIELDS = ['testPlanKey', 'environments'];

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export async function importMultipart(store: XrayStore, req: SandboxRequest): Promise<SandboxResponse> {
  const type = String(req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data\b/i.test(type))
    return xrayError(400, 'Error importing results: expected multipart/form-data with parts results and info', ROUTE);
  let form: FormData;
  try {
    form = await new Response(req.rawBytes, { headers: { 'content-type': type } }).formData();
  } catch (e) {
    return xrayError(400, `Error importing results: malformed multipart body (${(e as Error).message})`, ROUTE);
  }
  const results = await jsonPart(form, 'results');
  const info = await jsonPart(form, 'info');
  const missing = [results, info].filter((p) => typeof p === 'string') as string[];
  if (missing.length > 0) return xrayError(400, missing.join('; '), ROUTE);
  if (!isObject(results) || !isObject(info)) return xrayError(400, 'Error importing results: results and info must be JSON objects', ROUTE);

  const fields = isObject(info.fields) ? info.fields : {};
  const xrayFields = isObject(info.xrayFields) ? info.xrayFields : {};
  const invalid = Object.keys(xrayFields).filter((k) => !XRAY_FIELDS.includes(k));
  if (invalid.length > 0) {
    return xrayError(
      400,
      `Error importing results: xrayFields in info file contains the following invalid fields: ${invalid.join(', ')}!`,
      ROUTE,
    );
  }
  const issueType = isObject(fields.issuetype) ? fields.issuetype : {};
  if (issueType.name !== undefined && issueType.name !== 'Test Execution') {
    return xrayError(
      400,
      `Error creating Test Execution - Issue create failed! - issuetype: ${JSON.stringify(issueType.name)} is not the Test Execution issue type.`,
      ROUTE,
    );
  }
  const environments = stringList(xrayFields.environments);
  if (environments === null) return xrayError(400, 'Error importing results: xrayFields.environments must be an array of names', ROUTE);
  const resultsInfo = isObject(results.info) ? results.info : {};
  const doc: Obj = {
    ...results,
    info: { ...resultsInfo, ...(xrayFields.testPlanKey === undefined ? {} : { testPlanKey: xrayFields.testPlanKey }) },
  };
  delete doc.testExecutionKey;
  return runImport(
    store,
    doc,
    { project: projectOf(fields), summary: fields.summary, description: fields.description, fields, environments },
    ROUTE,
  );
}

/** A part's JSON (file or field), or the error sentence when it is missing or not JSON. */
async function jsonPart(form: FormData, name: string): Promise<unknown> {
  const part = form.get(name);
  if (part === null) return `Error importing results: the multipart body has no "${name}" part`;
  const text = typeof part === 'string' ? part : await part.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return `Error importing results: the "${name}" part is not valid JSON`;
  }
}
