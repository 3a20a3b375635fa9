import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SandboxResponse } from './types';

/** The request body's bytes, exactly as received. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function send(res: ServerResponse, answer: SandboxResponse): void {
  write(res, answer);
}

/** Writes the answer; returns the body's size in bytes. */
export function write(res: ServerResponse, answer: SandboxResponse): number {
  const headers: Record<string, string> = { ...(answer.headers ?? {}) };
  let payload = '';
  if (typeof answer.body === 'string') payload = answer.body;
  else if (answer.body !== undefined) {
    payload = JSON.stringify(answer.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json;charset=UTF-8';
  }
  headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(answer.status, headers);
  res.end(payload);
  return Number(headers['content-length']);
}
