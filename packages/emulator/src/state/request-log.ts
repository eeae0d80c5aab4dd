// The request log's entries (GET /_emulator/requests): kept with the state, so that the backend that holds them and
// the HTTP and WebSocket code that fills them both import them from below.

export interface LoggedRequest {
  /** position in the log (GET /_emulator/requests?after=SEQ for what came since) */
  seq: number;
  id: string;
  time: number;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  headers: Record<string, string | string[] | undefined>;
  /** the body as text when it was read and is small enough (JSON bodies) */
  body?: string;
  /** request body size in bytes (read, else Content-Length) */
  bytes?: number;
  /** what the emulator noticed and let pass (fields the API document does not describe) */
  warnings?: string[];
  /** set when the reply is finished */
  status?: number;
  duration_ms?: number;
  /** a WebSocket session (method WS): its events each way and how it ended */
  ws?: WsSessionLog;
}

export interface WsSessionLog {
  /** the session's id, when its first server event names one (`session.id`, `session_id`) */
  session_id?: string;
  /** event types the client sent, with how many of each (binary messages as `(binary)`) */
  events_in: Record<string, number>;
  /** event types the server sent, with how many of each */
  events_out: Record<string, number>;
  close_code?: number;
  close_reason?: string;
}
