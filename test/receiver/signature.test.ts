import { test } from "node:test";
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import fc from "fast-check";
import { verifyHmacSha256, verifyToken } from "../../src/receiver/signature.ts";
import { DeliveryLog } from "../../src/receiver/replay.ts";

test("GitHub's documented test vector verifies (docs: Validating webhook deliveries)", () => {
  const secret = Buffer.from("It's a Secret to Everybody");
  const body = Buffer.from("Hello, World!");
  const header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
  assert.ok(verifyHmacSha256(secret, body, header));
  assert.ok(!verifyHmacSha256(Buffer.from("It's a Secret to Everybody!"), body, header), "another secret");
  assert.ok(!verifyHmacSha256(secret, Buffer.from("Hello, World?"), header), "another body");
  assert.ok(verifyHmacSha256(secret, body, header.slice("sha256=".length)), "Gitea/Forgejo send the bare hex digest");
  assert.ok(verifyHmacSha256(secret, body, header.toUpperCase().replace("SHA256=", "sha256=")), "hex case does not matter");
});

test("HMAC: missing, malformed, truncated or SHA-1 signatures never verify", () => {
  const secret = Buffer.from("s");
  const body = Buffer.from("{}");
  const good = createHmac("sha256", secret).update(body).digest("hex");
  for (const bad of [undefined, "", "sha256=", `sha256=${good.slice(0, 63)}`, `sha256=${good}0`, `sha1=${createHmac("sha1", secret).update(body).digest("hex")}`, `sha256=${"z".repeat(64)}`]) {
    assert.ok(!verifyHmacSha256(secret, body, bad), String(bad));
  }
});

test("HMAC: a signature verifies only for its own secret and body (property)", () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.uint8Array({ minLength: 1, maxLength: 64 }), fc.uint8Array({ maxLength: 256 }), (s1, s2, body) => {
      const sig = `sha256=${createHmac("sha256", Buffer.from(s1)).update(Buffer.from(body)).digest("hex")}`;
      assert.ok(verifyHmacSha256(Buffer.from(s1), Buffer.from(body), sig));
      if (!Buffer.from(s1).equals(Buffer.from(s2))) assert.ok(!verifyHmacSha256(Buffer.from(s2), Buffer.from(body), sig));
    }),
  );
});

test("GitLab X-Gitlab-Token: equal only to the secret itself, whatever the lengths", () => {
  const secret = Buffer.from("gitlab-secret-token");
  assert.ok(verifyToken(secret, "gitlab-secret-token"));
  for (const bad of [undefined, "", "gitlab-secret-toke", "gitlab-secret-token ", "x".repeat(10_000)]) assert.ok(!verifyToken(secret, bad));
});

test("delivery log: bounded, forgets the oldest first, a re-added id becomes the newest", () => {
  const log = new DeliveryLog(3);
  for (const id of ["a", "b", "c"]) log.add(id);
  log.add("a");
  log.add("d");
  assert.ok(!log.has("b"));
  assert.ok(log.has("a") && log.has("c") && log.has("d"));
  assert.equal(log.size, 3);
});
