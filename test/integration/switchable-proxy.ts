/**
 * A TCP relay in front of the sandbox that a test can switch mid-run: `pass` relays bytes both ways,
 * `refuse` closes its listener (new connections are refused; the port is not reused), `hang` accepts
 * connections and never answers. Switching cuts the connections open at that moment (keep-alive sockets
 * would otherwise still reach the sandbox).
 */
import * as net from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'hang';

export interface SwitchableProxy {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `127.0.0.1:<port>`, as the reporter's messages name it. */
  host: string;
  switchTo(mode: ProxyMode): Promise<void>;
  close(): Promise<void>;
}

export async function switchableProxy(upstream: string): Promise<SwitchableProxy> {
  const target = new URL(upstream);
  let mode: ProxyMode = 'pass';
  const open = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    open.add(s);
    s.on('close', () => open.delete(s));
    s.on('error', () => undefined);
  };
  const server = net.createServer((client) => {
    track(client);
    if (mode !== 'pass') return; // hang: read nothing, answer nothing
    const up = net.connect(Number(target.port), target.hostname);
    track(up);
    client.pipe(up);
    up.pipe(client);
    up.on('close', () => client.destroy());
    client.on('close', () => up.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const cutAll = () => {
    for (const s of open) s.destroy();
  };
  let closed = false;
  const closeListener = () =>
    new Promise<void>((resolve) => {
      if (closed) return resolve();
      closed = true;
      server.close(() => resolve());
      cutAll();
    });
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    switchTo: async (next) => {
      mode = next;
      cutAll();
      if (next === 'refuse') await closeListener();
    },
    close: async () => {
      await closeListener();
    },
  };
}
