/**
 * Bearer-token authentication of Metacontroller (v4.16+ `webhook.authorization`, Bearer by
 * default). The token lives in a mounted file; it is compared in constant time and re-read when
 * the file changes, so a rotated Secret takes effect without a restart.
 *
 * @packageDocumentation
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";

/** SHA-256 digests have one length, so comparing them never leaks the token's length. */
function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/**
 * Extracts the credentials of an `Authorization: Bearer <token>` header.
 * The scheme is case-insensitive (RFC 7235 §2.1); anything else yields undefined.
 */
export function bearerCredentials(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +([\x21-\x7e]+) *$/i.exec(header);
  return match?.[1];
}

/**
 * Reads a token file: surrounding whitespace (the trailing newline of `echo`) is ignored.
 * @throws Error naming the file (never its content) when it cannot be read or holds no token
 */
export function readTokenFile(path: string): string {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`AUTH_TOKEN_FILE ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
  const token = raw.trim();
  if (token === "" || !/^[\x21-\x7e]+$/.test(token)) {
    throw new Error(`AUTH_TOKEN_FILE ${path} must hold one token of visible ASCII characters`);
  }
  return token;
}

/** The expected bearer token, kept only as a digest. */
export class BearerToken {
  #expected: Buffer;

  /** @param token - the expected token (not empty) */
  constructor(token: string) {
    this.#expected = digest(token);
  }

  /** Replaces the expected token (after the file changed). */
  replace(token: string): void {
    this.#expected = digest(token);
  }

  /**
   * Whether an `Authorization` header carries the expected bearer token. Constant time in the
   * token's content: both sides are hashed and compared with `timingSafeEqual`.
   */
  matches(authorizationHeader: string | undefined): boolean {
    const given = bearerCredentials(authorizationHeader);
    // Hash even a missing token so a missing header costs what a wrong one costs.
    const ok = timingSafeEqual(digest(given ?? ""), this.#expected);
    return ok && given !== undefined;
  }
}
