// The admin API of a running emulator (`svc emulator serve`), under /_emulator/ on its base URL. Off loopback it
// needs the admin token the emulator printed at start ($SVC_EMULATOR_ADMIN_TOKEN).
import type { LoggedRequest } from 'svc-emulator/request-log';
import type { HttpClient, Query } from '../net/http.js';

/** an entry of the request log (GET /_emulator/requests): the control API is the emulator's, not the API's, so the
 * document does not type it; the emulator's own definition does (a type only: nothing of the emulator is loaded) */
export type { LoggedRequest };

/** a fault of the emulator's control API (not the API's) */
export interface FaultSpec {
  kind: 'status' | 'drop' | 'slow';
  path?: string;
  method?: string;
  status?: number;
  /** seconds (a number or its digits) or an HTTP date */
  retryAfter?: string | number;
  message?: string;
  afterEvents?: number;
  delayMs?: number;
  times?: number;
  left?: number;
}

export type TriggerKind =
  | 'incoming-call'
  | 'caller-says'
  | 'caller-hangup'
  | 'video-done'
  | 'deferred-ready'
  | 'file-expired';

const adminHeaders = (token: string | undefined): Record<string, string> =>
  token ? { 'x-emulator-admin-token': token } : {};

export class EmulatorAdmin {
  constructor(
    private http: HttpClient,
    private token: string | undefined,
    private signal?: AbortSignal,
  ) {}

  private call<T>(method: string, path: string, opts: { json?: unknown; query?: Query } = {}): Promise<T> {
    return this.http.json<T>(method, `/_emulator/${path}`, {
      ...opts,
      headers: adminHeaders(this.token),
      auth: false,
      signal: this.signal,
    });
  }

  health() {
    return this.call<{ status: string; url: string; ws_url: string; seed: number | null }>('GET', 'health');
  }
  requests(query: { after?: number; path?: string; status?: string }) {
    return this.call<LoggedRequest[]>('GET', 'requests', { query });
  }
  reset() {
    return this.call<{ ok: boolean; fixtures?: Record<string, number> }>('POST', 'reset', { json: {} });
  }
  trigger(kind: TriggerKind, body: Record<string, unknown>) {
    return this.call<Record<string, unknown>>('POST', `trigger/${kind}`, { json: body });
  }
  addFaults(faults: FaultSpec[]) {
    return this.call<{ faults: FaultSpec[] }>('POST', 'faults', { json: faults });
  }
  listFaults() {
    return this.call<{ faults: FaultSpec[] }>('GET', 'faults');
  }
  clearFaults() {
    return this.call<{ ok: boolean }>('DELETE', 'faults');
  }
}
