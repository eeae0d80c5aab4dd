// `svc calls listen --forward-to URL`, like Stripe's `listen --forward-to`: every verified delivery is relayed to
// the user's own server, re-signed (Standard Webhooks headers with a fresh timestamp, the same webhook id) with the
// forwarding secret, and the answer's status is reported. A server that is down or slow is reported, never fatal.
import { performance } from 'node:perf_hooks';

export interface ForwardResult {
  /** the answer's status; undefined when the server could not be reached */
  status?: number;
  error?: string;
  ms: number;
}

export interface WebhookForwarderOptions {
  url: string;
  /** the secret the relayed deliveries are signed with (whsec_… or raw) */
  secret: string;
  /** how long to wait for the user's server (ms) */
  timeoutMs: number;
}

export class WebhookForwarder {
  constructor(private readonly opts: WebhookForwarderOptions) {}

  /** Relay one verified delivery: its body as it came, its webhook id, signed anew. */
  async forward(id: string, body: Buffer, contentType = 'application/json'): Promise<ForwardResult> {
    const { signedHeaders } = await import('svc-formats/webhooks');
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    try {
      const res = await fetch(this.opts.url, {
        method: 'POST',
        headers: {
          'content-type': contentType,
          'user-agent': 'svc-calls-listen',
          ...signedHeaders(this.opts.secret, id, body),
        },
        body: new Uint8Array(body),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      return { status: res.status, ms: ms() };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const why =
        e.name === 'TimeoutError'
          ? `no answer within ${this.opts.timeoutMs} ms`
          : (e.cause?.code ?? e.cause?.message ?? e.message);
      return { error: why, ms: ms() };
    }
  }
}

/** The line reported for a relayed delivery: `→ 200 POST URL (12 ms) realtime.call.incoming call_… [id]`. */
export function forwardLine(url: string, r: ForwardResult, type: string, id: string): string {
  const what = r.status !== undefined ? String(r.status) : `failed (${r.error})`;
  return `→ ${what} POST ${url} (${r.ms} ms) ${type} [${id}]`;
}

/**
 * The `onVerified` of the webhook server when forwarding: each delivery relayed in order of arrival, its line
 * reported (`ok` for a 2xx); `settled()` waits for the relays under way (before the command ends).
 */
export function forwardDeliveries(
  opts: WebhookForwarderOptions,
  report: (line: string, ok: boolean) => void,
): { onVerified(id: string, body: Buffer, ev: { type?: string }): void; settled(): Promise<void> } {
  const forwarder = new WebhookForwarder(opts);
  let chain: Promise<void> = Promise.resolve();
  return {
    onVerified(id, body, ev) {
      chain = chain.then(async () => {
        const r = await forwarder.forward(id, body);
        const ok = r.status !== undefined && r.status >= 200 && r.status < 300;
        report(forwardLine(opts.url, r, ev.type ?? '(no type)', id), ok);
      });
    },
    settled: () => chain,
  };
}
