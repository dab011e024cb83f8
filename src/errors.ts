/**
 * Errors that map to one HTTP status and one JSON error body `{error, message, requestId}`.
 * The HTTP layer and the CLI share them, so both report a failure the same way.
 *
 * @packageDocumentation
 */

/** An error with an HTTP status and a machine-readable code. */
export class HookError extends Error {
  /**
   * @param status - HTTP status: 400 malformed JSON (or not UTF-8), 404 no such route, 405 wrong
   *   method, 413 too large, 415 wrong content type, 422 not a Metacontroller request, 500 internal
   * @param code - machine code for the `error` field, e.g. `invalid_request`
   * @param message - a short human message (Metacontroller puts it in a Warning event)
   */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "HookError";
  }
}

/** 400: the body is not JSON. */
export function malformedJson(detail: string): HookError {
  return new HookError(400, "malformed_json", `request body is not valid JSON: ${detail}`);
}

/** 422: JSON, but not a hook request this route accepts. */
export function invalidRequest(message: string): HookError {
  return new HookError(422, "invalid_request", message);
}

/** 500: a bug on our side; Metacontroller retries and changes nothing. */
export function internalError(message: string): HookError {
  return new HookError(500, "internal", message);
}

/** The JSON error body every non-200 answer carries. */
export interface ErrorBody {
  error: string;
  message: string;
  requestId: string;
}

/** Builds the error body for any thrown value; unknown errors become a generic 500. */
export function toErrorBody(err: unknown, requestId: string): { status: number; body: ErrorBody } {
  if (err instanceof HookError) {
    return { status: err.status, body: { error: err.code, message: err.message, requestId } };
  }
  return {
    status: 500,
    body: { error: "internal", message: "internal error; see the hook service logs", requestId },
  };
}

/**
 * zod issues as one short line for a 422 message: at most five, each `path: message` (the
 * admission and hook routes report a body that is not their request this way).
 */
export function formatIssues(error: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> }): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join(".") : "(root)"}: ${i.message}`)
    .join("; ");
}
