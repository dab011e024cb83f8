/**
 * Bearer-token authentication of Metacontroller (v4.16+ `webhook.authorization`, Bearer by
 * default). The tokens live in a mounted file; they are compared in constant time and re-read when
 * the file changes, so a rotated Secret takes effect without a restart.
 *
 * The file may hold several tokens, one per line, all accepted: Metacontroller switches to a new
 * token only when it recreates a controller, so during a rotation the old and the new token must
 * both pass until it has.
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

/** Most tokens one file may hold (a rotation needs two; a few more cover overlapping ones). */
export const MAX_TOKENS = 8;

/**
 * Reads a token file: one token per line (surrounding whitespace and blank lines ignored, so the
 * trailing newline of `echo` is harmless), at most {@link MAX_TOKENS}, in file order.
 * @throws Error naming the file (never its content) when it cannot be read, holds no token, a
 *   line that is not one token of visible ASCII characters, or too many tokens
 */
export function readTokenFile(path: string): string[] {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch (err) {
    throw new Error(`AUTH_TOKEN_FILE ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
  const tokens = raw.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
  if (tokens.length === 0 || tokens.some((token) => !/^[\x21-\x7e]+$/.test(token))) {
    throw new Error(`AUTH_TOKEN_FILE ${path} must hold one token of visible ASCII characters per line`);
  }
  if (tokens.length > MAX_TOKENS) throw new Error(`AUTH_TOKEN_FILE ${path} holds more than ${MAX_TOKENS} tokens`);
  return tokens;
}

/** The accepted bearer tokens, kept only as digests. */
export class BearerToken {
  #expected: Buffer[];

  /** @param tokens - the accepted token, or several (each not empty) */
  constructor(tokens: string | readonly string[]) {
    this.#expected = BearerToken.#digests(tokens);
  }

  static #digests(tokens: string | readonly string[]): Buffer[] {
    const list = typeof tokens === "string" ? [tokens] : [...tokens];
    if (list.length === 0) throw new Error("BearerToken needs at least one token");
    return list.map(digest);
  }

  /** Replaces the accepted tokens (after the file changed). */
  replace(tokens: string | readonly string[]): void {
    this.#expected = BearerToken.#digests(tokens);
  }

  /**
   * Whether an `Authorization` header carries one of the accepted bearer tokens. Constant time in
   * the token's content: both sides are hashed and compared with `timingSafeEqual`, against every
   * accepted token (no early exit on a match).
   */
  matches(authorizationHeader: string | undefined): boolean {
    const given = bearerCredentials(authorizationHeader);
    // Hash even a missing token so a missing header costs what a wrong one costs.
    const hashed = digest(given ?? "");
    let ok = false;
    for (const expected of this.#expected) ok = timingSafeEqual(hashed, expected) || ok;
    return ok && given !== undefined;
  }
}
