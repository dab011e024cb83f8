/**
 * Reading a JSON request body, shared by every listener and the CLI: the body limit, the bytes in
 * flight, Content-Encoding, and parse errors that never quote the body.
 *
 * @packageDocumentation
 */
import zlib from "node:zlib";
import type { IncomingMessage } from "node:http";
import type { Duplex, Readable } from "node:stream";
import { HookError, malformedJson } from "../errors.ts";

/** Seconds a client is asked to wait after a 429 (`Retry-After`); Metacontroller honours it. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * Bytes of request bodies held in memory at once, across every listener of the process. Request
 * bodies are what grows with load (a parsed body costs a few times its size again, but only one
 * is parsed at a time: hooks are synchronous), so bounding them bounds memory, where a bound on
 * the number of calls alone does not (32 calls of 8 MiB each).
 */
export class ByteBudget {
  private used = 0;
  /** @param capacity - bytes, e.g. `MAX_INFLIGHT_BYTES` */
  constructor(readonly capacity: number) {}
  /** Bytes reserved right now. */
  get inUse(): number {
    return this.used;
  }
  /** Reserves `bytes` when they fit. @returns false (nothing reserved) when they do not */
  tryReserve(bytes: number): boolean {
    if (this.used + bytes > this.capacity) return false;
    this.used += bytes;
    return true;
  }
  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}

/** Limits of {@link readJsonBody}. */
export interface BodyLimits {
  /** Largest body in bytes, on the wire and after decompression (`BODY_LIMIT_BYTES`). */
  limitBytes: number;
  /** The process's budget of body bytes in flight (`MAX_INFLIGHT_BYTES`). */
  budget: ByteBudget;
}

/** Content-Encoding values we decode (RFC 9110 §8.4.1; `x-gzip` is gzip's old name). */
const DECODERS: Readonly<Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress>> = {
  gzip: () => zlib.createGunzip(),
  "x-gzip": () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** 413 with the real numbers. */
export function tooLarge(limitBytes: number, what: string): HookError {
  return new HookError(413, "too_large", `request body ${what} exceeds the limit of ${limitBytes} bytes (BODY_LIMIT_BYTES)`);
}

function overBudget(budget: ByteBudget, bytes: number): HookError {
  return new HookError(
    429,
    "overloaded",
    `request bodies in flight would exceed ${budget.capacity} bytes (MAX_INFLIGHT_BYTES; ${budget.inUse} in use, this one ${bytes} so far); retry after ${RETRY_AFTER_SECONDS} s`,
  );
}

/**
 * The message of a JSON syntax error without any of the body. V8's messages quote a piece of the
 * input (`Unexpected token 'B', "Bearer hun"... is not valid JSON`), and bodies can carry tokens
 * while error messages end up in logs and Kubernetes events; only the position is kept.
 */
export function describeJsonError(err: unknown): string {
  const message = err instanceof Error ? err.message : "";
  if (/Unexpected end of JSON input/.test(message)) return "unexpected end of input";
  const position = /at position (\d+)/.exec(message);
  return position ? `syntax error at position ${position[1]}` : "syntax error";
}

/**
 * Strict UTF-8 (JSON's encoding, RFC 8259): an invalid sequence throws instead of becoming U+FFFD,
 * which would silently change a name or label. A BOM is kept, so JSON.parse refuses it as before.
 */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Parses a complete body: empty → 400, over the limit → 413, not UTF-8 or not JSON → 400 (no excerpt).
 * @param bytes - the body, already decoded from any Content-Encoding
 * @throws HookError 400 `malformed_json` (also for invalid UTF-8) or 413 `too_large`
 */
export function parseJsonBody(bytes: Buffer, limitBytes: number): unknown {
  if (bytes.length > limitBytes) throw tooLarge(limitBytes, `of ${bytes.length} bytes`);
  if (bytes.length === 0) throw malformedJson("empty body");
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw malformedJson("the body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw malformedJson(describeJsonError(err));
  }
}

/**
 * Reads and parses a request's JSON body. Checked in this order, each without reading further than
 * needed: Content-Encoding (identity, gzip, x-gzip, deflate, br; else 415) and charset (UTF-8;
 * else 415); a Content-Length over the limit → 413 at once, over what is left of the budget → 429;
 * then while the body streams, the bytes on the wire and after decompression against the limit
 * (413, so a compression bomb stops at the limit) and each decoded chunk against the budget (429).
 * A corrupt compressed stream is the client's error (400 `bad_encoding`).
 *
 * @param onReserve - told every budget reservation, so the caller can release it (all of it,
 *   also when this rejects) once the answer is sent
 * @returns the parsed JSON value
 * @throws HookError 400, 413, 415 or 429 as above
 */
export function readJsonBody(req: IncomingMessage, limits: BodyLimits, onReserve: (bytes: number) => void): Promise<unknown> {
  const { limitBytes, budget } = limits;
  const encoding = String(req.headers["content-encoding"] ?? "identity").trim().toLowerCase() || "identity";
  const decoder = encoding === "identity" ? undefined : DECODERS[encoding];
  if (encoding !== "identity" && !decoder) {
    return Promise.reject(new HookError(415, "unsupported_media_type", `unsupported Content-Encoding ${JSON.stringify(encoding.slice(0, 40))}; use gzip, deflate, br or none`));
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(String(req.headers["content-type"] ?? ""))?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") {
    return Promise.reject(new HookError(415, "unsupported_media_type", `unsupported charset ${JSON.stringify(charset.slice(0, 40))}; JSON bodies are UTF-8`));
  }
  const declared = req.headers["content-length"] === undefined ? undefined : Number(req.headers["content-length"]);
  if (declared !== undefined && Number.isSafeInteger(declared)) {
    if (declared > limitBytes) return Promise.reject(tooLarge(limitBytes, `of ${declared} bytes (Content-Length)`));
    // Checked, not reserved: a client that announces a large body but sends it slowly holds only
    // what it has sent, so trickling clients cannot starve the others.
    if (declared > budget.capacity - budget.inUse) return Promise.reject(overBudget(budget, declared));
  }

  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let wireBytes = 0;
    let bodyBytes = 0;
    let settled = false;
    const stream: Readable = decoder ? decoder() : req;
    const fail = (err: HookError) => {
      if (settled) return;
      settled = true;
      cleanup();
      // Stop keeping the body and discard the rest as it arrives (bounded by the server's request
      // timeout): a client still sending when the connection is cut would see a reset instead of
      // the answer.
      if (decoder) {
        req.unpipe(stream as Duplex);
        stream.destroy();
      }
      req.resume();
      reject(err);
    };
    const onWire = (chunk: Buffer) => {
      wireBytes += chunk.length;
      if (decoder && wireBytes > limitBytes) fail(tooLarge(limitBytes, `of at least ${wireBytes} bytes (compressed)`));
    };
    const onData = (chunk: Buffer) => {
      if (settled) return;
      bodyBytes += chunk.length;
      if (bodyBytes > limitBytes) {
        fail(tooLarge(limitBytes, decoder ? `of at least ${bodyBytes} bytes after decompression (${wireBytes} bytes ${encoding} on the wire)` : `of at least ${bodyBytes} bytes`));
        return;
      }
      if (!budget.tryReserve(chunk.length)) {
        fail(overBudget(budget, bodyBytes));
        return;
      }
      onReserve(chunk.length);
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (settled) return;
      settled = true;
      cleanup();
      const bytes = Buffer.concat(chunks, bodyBytes);
      // The chunks are garbage from here on; without this they would live as long as the parse.
      chunks.length = 0;
      try {
        resolve(parseJsonBody(bytes, limitBytes));
      } catch (err) {
        reject(err);
      }
    };
    const onDecodeError = () => fail(new HookError(400, "bad_encoding", `request body is not valid ${encoding} data (Content-Encoding: ${encoding})`));
    const onAborted = () => fail(new HookError(400, "aborted", "request aborted by the client"));
    const onClose = () => {
      if (!req.complete) onAborted();
    };
    function cleanup() {
      req.off("data", onWire);
      req.off("aborted", onAborted);
      req.off("close", onClose);
      req.off("error", onAborted);
      stream.off("data", onData);
      stream.off("end", onEnd);
      if (decoder) stream.off("error", onDecodeError);
    }
    req.on("aborted", onAborted);
    req.on("close", onClose);
    req.on("error", onAborted);
    if (decoder) {
      req.on("data", onWire);
      stream.on("error", onDecodeError);
      req.pipe(stream as Duplex);
    }
    stream.on("data", onData);
    stream.on("end", onEnd);
  });
}
