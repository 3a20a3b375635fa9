/**
 * The sender's transport against real local servers: what a caller sees when the other side is silent, hangs up
 * mid-answer, splits a character across packets, or keeps the connection for the next request.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttp, type Http } from '../../src/http/client';
import { NetworkError } from '../../src/http/errors';

let servers: http.Server[] = [];
let clients: Http[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
  clients = [];
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function client(timeoutMs = 30_000): Http {
  const c = createHttp({ timeoutMs });
  clients.push(c);
  return c;
}

describe('http transport', () => {
  it('a server that never answers is a "timed out" NetworkError after timeoutMs of silence', async () => {
    const origin = await serve(() => {}); // holds the request forever
    const error = await client(300)
      .send('Zephyr', { method: 'GET', url: `${origin}/slow`, headers: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ETIMEDOUT');
    expect((error as Error).message).toBe('Zephyr: GET /slow failed: timed out');
  });

  it('an answer cut off mid-body is a connection reset, not a short answer', async () => {
    const origin = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '1000' });
      res.write('{"partial":', () => res.socket?.destroy());
    });
    const error = await client()
      .send('Zephyr', { method: 'GET', url: `${origin}/cut`, headers: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ECONNRESET');
  });

  it('decodes UTF-8 split across packets, joins repeated headers, and sends Content-Length with the body', async () => {
    const seen: Array<{ length?: string; type?: string; body: string }> = [];
    const text = '{"name":"Prüfung ✓ 測試"}';
    const bytes = Buffer.from(text);
    const origin = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ length: req.headers['content-length'], type: req.headers['content-type'], body: Buffer.concat(chunks).toString() });
        res.writeHead(200, [
          ['Content-Type', 'application/json'],
          ['Set-Cookie', 'a=1'],
          ['Set-Cookie', 'b=2'],
        ]);
        // Cut inside the three bytes of "✓", one packet each half.
        const cut = bytes.indexOf(Buffer.from('✓')) + 1;
        res.write(bytes.subarray(0, cut), () => setTimeout(() => res.end(bytes.subarray(cut)), 20));
      });
    });
    const body = JSON.stringify({ ä: 'ö' });
    const res = await client().send('Zephyr', {
      method: 'POST',
      url: `${origin}/x`,
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    expect(res.text).toBe(text);
    expect(res.headers['set-cookie']).toBe('a=1, b=2');
    expect(seen).toEqual([{ length: String(Buffer.byteLength(body)), type: 'application/json', body }]);
  });

  it('keeps the connection for the next request, and a multipart body carries its boundary', async () => {
    const sockets = new Set<unknown>();
    const types: string[] = [];
    const origin = await serve((req, res) => {
      sockets.add(req.socket);
      types.push(req.headers['content-type'] ?? '');
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    const c = client();
    await c.send('Zephyr', { method: 'GET', url: `${origin}/a`, headers: {} });
    const form = new FormData();
    form.append('file', new Blob(['png bytes'], { type: 'image/png' }), 'shot.png');
    await c.send('Zephyr', { method: 'POST', url: `${origin}/b`, headers: {}, body: form });
    expect(sockets.size).toBe(1);
    expect(types[1]).toMatch(/^multipart\/form-data; boundary=/);
  });
});
