// The API's errors as the emulator throws them: at the ground, so that state and text modules can refuse a request
// without importing the router. Bodies follow wire-details.md (the router writes them).

export const ERROR_CODES: Record<number, string> = {
  400: 'invalid-argument',
  401: 'unauthenticated',
  403: 'permission-denied',
  404: 'not-found',
  405: 'method-not-allowed',
  409: 'conflict',
  413: 'payload-too-large',
  415: 'unsupported-media-type',
  429: 'resource-exhausted',
  500: 'internal',
  503: 'unavailable',
};

/** Thrown by handlers to answer with an error status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A 422 answered as plain text, as the service does when a body does not deserialize. */
export class DeserializeError extends HttpError {
  constructor(message: string) {
    super(422, message);
  }
}

/** A 400 about one field the document describes: a WebSocket error event names it (`param`). */
export class InvalidFieldError extends HttpError {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(400, message);
  }
}

/** 400 with a message naming the field and its allowed values. */
export function invalid(message: string): never {
  throw new HttpError(400, message);
}

export function notFound(message: string): never {
  throw new HttpError(404, message);
}
