/**
 * Webhook delivery verification, constant time.
 *
 * - GitHub, Gitea, Forgejo: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`
 *   (GitHub docs "Validating webhook deliveries"; Gitea/Forgejo also send the bare hex digest as
 *   `X-Gitea-Signature` / `X-Forgejo-Signature`).
 * - GitLab: `X-Gitlab-Token: <the secret token itself>` (no signature over the body).
 *
 * @packageDocumentation
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/**
 * Whether `header` is the HMAC-SHA256 of `body` under `secret`.
 * @param header - `sha256=<64 hex>` (the prefix may be left out for the Gitea/Forgejo headers)
 * @returns false for a missing, malformed or wrong signature
 */
export function verifyHmacSha256(secret: Buffer, body: Buffer, header: string | undefined): boolean {
  if (typeof header !== "string") return false;
  const hex = header.startsWith("sha256=") ? header.slice("sha256=".length) : header;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(hex, "hex"));
}

/**
 * Whether a GitLab `X-Gitlab-Token` equals the secret. Both sides are hashed first, so the
 * comparison takes the same time whatever their lengths.
 */
export function verifyToken(secret: Buffer, header: string | undefined): boolean {
  if (typeof header !== "string" || header === "") return false;
  const a = createHash("sha256").update(secret).digest();
  const b = createHash("sha256").update(header, "utf8").digest();
  return timingSafeEqual(a, b);
}
