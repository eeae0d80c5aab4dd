// An API that bills, for budget tests: a loopback reverse proxy in front of the emulator that passes every request
// and reply through unchanged except the emulator's mark (x-svc-emulator), so that svc counts the calls as it would
// count the real API's (the emulator's own replies are logged as emulated and never counted toward a budget).
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BillingProxy {
  url: string;
  /** the requests that reached it, as `METHOD /path` */
  hits: string[];
  /**
   * hold the replies to the requests `held` picks (default: POSTs) until `open()` is called, so that calls started
   * together stay in flight together
   */
  gate(held?: (method: string, path: string) => boolean): { open(): void };
  close(): Promise<void>;
}

/** `delayMs`: each reply held that long, so that calls started together are in flight together */
export async function startBillingProxy(target: string, opts: { delayMs?: number } = {}): Promise<BillingProxy> {
  const hits: string[] = [];
  let closed: Promise<void> = Promise.resolve();
  const posts = (method: string, _path: string) => method === 'POST';
  let gated: (method: string, path: string) => boolean = posts;
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url?.split('?')[0]}`);
    const headers = { ...req.headers, host: upstream.host };
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (reply) => {
        const { 'x-svc-emulator': _mark, ...kept } = reply.headers;
        const held = gated(req.method ?? '', req.url ?? '') ? closed : Promise.resolve();
        setTimeout(
          () =>
            void held.then(() => {
              res.writeHead(reply.statusCode ?? 502, kept);
              reply.pipe(res);
            }),
          opts.delayMs ?? 0,
        );
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    gate(held) {
      gated = held ?? posts;
      let open = () => {};
      closed = new Promise((resolve) => (open = resolve));
      return { open: () => open() };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
