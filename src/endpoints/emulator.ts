// The admin API of a running emulator (`svc emulator serve`), under /_emulator/ on its base URL. Off loopback it
// needs the admin token the emulator printed at start ($SVC_EMULATOR_ADMIN_TOKEN).
import type { LoggedRequest } from 'svc-emulator/request-log';
import type { ArmedFault, Fault } from 'svc-emulator/faults';
import type { TRIGGERS } from 'svc-emulator/admin';
import type { HttpClient, Query } from '../net/http.js';

// The control API is the emulator's, not the API's, so the document does not type it: its entries of the request log
// (GET /_emulator/requests), its faults and its triggers are the emulator's own definitions, imported as types only
// (nothing of the emulator is loaded).
export type { ArmedFault, Fault, LoggedRequest };
/** POST /_emulator/trigger/{kind}: the emulator's list of triggers */
export type TriggerKind = (typeof TRIGGERS)[number];

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
  addFaults(faults: Fault[]) {
    return this.call<{ faults: ArmedFault[] }>('POST', 'faults', { json: faults });
  }
  listFaults() {
    return this.call<{ faults: ArmedFault[] }>('GET', 'faults');
  }
  clearFaults() {
    return this.call<{ ok: boolean }>('DELETE', 'faults');
  }
}
