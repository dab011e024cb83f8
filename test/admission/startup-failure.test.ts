// A pod must not report Ready without its admission listener: with failurePolicy=Fail the API
// server would then reject every CronJob and CIBuild write. So `serve` exits when it cannot start.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

test("`serve` exits 1 before listening when the admission key does not match its certificate", () => {
  const dir = mkdtempSync(join(tmpdir(), "metahooks-adm-"));
  try {
    for (const name of ["a", "b"]) {
      const made = spawnSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, `${name}.key`), "-out", join(dir, `${name}.crt`), "-days", "1", "-subj", `/CN=${name}`]);
      assert.equal(made.status, 0, String(made.stderr));
    }
    const out = spawnSync(process.execPath, ["bin/metahooks.js", "serve"], {
      encoding: "utf8",
      timeout: 30_000,
      env: { ...process.env, PORT: "0", ADMIN_PORT: "0", ADMISSION_PORT: "0", LOG_LEVEL: "silent", ADMISSION_TLS_CERT_FILE: join(dir, "a.crt"), ADMISSION_TLS_KEY_FILE: join(dir, "b.key") },
    });
    assert.equal(out.signal, null, "serve kept running (it would report Ready without admission)");
    assert.equal(out.status, 1);
    assert.match(out.stderr, /key values mismatch|key/i);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
