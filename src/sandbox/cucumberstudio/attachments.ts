/**
 * Attachments of a test result (#86 list, #88 upload; spec §3.4): `multipart/form-data` with the file in a part
 * named `file`, answered 200 (not 201) with one `attachments` resource. The multipart body is parsed by the
 * platform (`Response.formData()`), not by hand. Download (#87) is not served: the core sends bodies as text, so
 * a binary file could not go back out intact.
 */
import type { SandboxRequest, SandboxResponse } from '../types';
import type { RouteContext } from './context';
import { errorResponse, ok, type Resource } from './jsonapi';
import type { Attachment, TestResult, TestSnapshot } from './store';

export function isMultipart(req: SandboxRequest): boolean {
  return /^multipart\/form-data\b/i.test(String(req.headers['content-type'] ?? ''));
}

/**
 * The request body as bytes. A core that provides `rawBytes` gives them exactly. The older core only has
 * `rawBody`, the body decoded as UTF-8: encoding it back as UTF-8 restores any body that was valid UTF-8 (text
 * files), while binary content has already lost its invalid sequences (`bytesSource` tells which path was used).
 */
function bodyBytes(req: SandboxRequest): { bytes: Buffer; source: Attachment['bytesSource'] } {
  const raw = (req as SandboxRequest & { rawBytes?: unknown }).rawBytes;
  if (raw instanceof Uint8Array) return { bytes: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), source: 'rawBytes' };
  return { bytes: Buffer.from(req.rawBody, 'utf8'), source: 'rawBody' };
}

export function attachmentResource(ctx: RouteContext, a: Attachment): Resource {
  const { pid, trid, tsid } = ctx.params;
  return {
    type: 'attachments',
    id: String(a.id),
    attributes: {
      id: a.id,
      'file-name': a.fileName,
      'file-url': `/api/projects/${pid}/test_runs/${trid}/test_snapshots/${tsid}/test_results/${a.resultId}/attachments/${a.id}`,
      'file-size': a.size,
    },
    links: { self: `/attachments/${a.id}` },
  };
}

/** The result named in the path, or a 404 answer when it is not a result of that test. */
function resultOf(ctx: RouteContext): { result: TestResult } | { error: SandboxResponse } {
  const snap = ctx.snapshot as TestSnapshot;
  const result = ctx.store.results.get(ctx.params.rid);
  if (!result || result.snapshotId !== snap.id) {
    return { error: errorResponse(404, `Test result ${ctx.params.rid} not found for test ${snap.id}`, ctx.route) };
  }
  return { result };
}

/** #86 */
export function listAttachments(ctx: RouteContext): SandboxResponse {
  const found = resultOf(ctx);
  if ('error' in found) return found.error;
  return ok(200, { data: found.result.attachments.map((a) => attachmentResource(ctx, a)) }, ctx.route);
}

/** #88 — 400 when the body is not a readable multipart form, 422 when it has no file in a part named `file`. */
export async function uploadAttachment(ctx: RouteContext): Promise<SandboxResponse> {
  const found = resultOf(ctx);
  if ('error' in found) return found.error;
  const contentType = String(ctx.req.headers['content-type'] ?? '');
  if (!isMultipart(ctx.req)) {
    const got = contentType || 'none';
    return errorResponse(400, `Upload the file as multipart/form-data in a part named "file" (got content-type "${got}")`, ctx.route);
  }
  const { bytes, source } = bodyBytes(ctx.req);
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return errorResponse(400, 'The multipart/form-data body could not be read (boundary or framing is wrong)', ctx.route);
  }
  const file = form.get('file');
  if (file === null || typeof file === 'string') {
    const parts = [...new Set(form.keys())];
    return errorResponse(422, `No file in a part named "file" (parts: ${parts.length > 0 ? parts.join(', ') : 'none'})`, ctx.route);
  }
  const attachment = ctx.store.addAttachment(found.result, {
    fileName: (file as File).name || 'file',
    contentType: file.type || 'application/octet-stream',
    bytes: Buffer.from(await file.arrayBuffer()),
    bytesSource: source,
  });
  return ok(200, { data: attachmentResource(ctx, attachment) }, ctx.route);
}
