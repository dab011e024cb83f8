/**
 * No secret value in logs, metrics, status or error bodies, through the whole HTTP path: a git URL
 * with embedded credentials (CIBuild rejects it and must not echo it) and the bearer token.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import request from "supertest";
import { pino } from "pino";
import { createApp } from "../../src/http/app.ts";
import { createMetrics } from "../../src/http/metrics.ts";
import { BearerToken } from "../../src/http/auth.ts";
import { configureControllers } from "../../src/controllers/registry.ts";

const FIXTURE = new URL("../fixtures/cibuild/invalid-credentials-in-url/", import.meta.url);
const TOKEN = "bearer-7c1d9e0f5a-secret";

const SECRET_URLS: [url: string, secret: string][] = [
  ["https://alice:ghp_S3cr3tT0kenValue@github.com/example/app.git", "ghp_S3cr3tT0kenValue"],
  ["https://x-access-token:gho_AnotherS3cret42@github.com/example/app.git", "gho_AnotherS3cret42"],
  ["https://glpat-OnlyTokenUser99@gitlab.com/example/app.git", "glpat-OnlyTokenUser99"],
  ["http://bob:pa%24%24w0rd-secret@git.example.com/app.git", "pa%24%24w0rd-secret"],
  ["ssh://carol:ssh-pass-secret-7@git.example.com/app.git", "ssh-pass-secret-7"],
];

test("a CIBuild git URL with credentials never shows up in the answer, the logs or the metrics", async () => {
  const base = JSON.parse(readFileSync(new URL("request.json", FIXTURE), "utf8"));
  const now = new Date(readFileSync(new URL("now.txt", FIXTURE), "utf8").trim());
  const lines: string[] = [];
  const logger = pino({ level: "trace" }, new Writable({ write(c, _e, cb) { lines.push(String(c)); cb(); } }));
  const metrics = createMetrics();
  const token = new BearerToken(TOKEN);
  const app = createApp({ controllers: configureControllers({}), logger, clock: () => now, metrics, authenticate: (h) => token.matches(h) });

  for (const [url, secret] of SECRET_URLS) {
    const body = structuredClone(base);
    body.parent.spec.SCMRepoURL = url;
    const answers = [
      await request(app).post("/sync/cibuild").set("Authorization", `Bearer ${TOKEN}`).send(body),
      await request(app).post("/finalize/cibuild").set("Authorization", `Bearer ${TOKEN}`).send(body),
      await request(app).post("/sync/cibuild").set("Authorization", `Bearer ${secret}`).send(body),
      await request(app).post("/customize/cibuild").set("Authorization", `Bearer ${TOKEN}`).send({ controller: {}, parent: body.parent }),
    ];
    assert.equal(answers[0]!.status, 200, answers[0]!.text.slice(0, 300));
    assert.equal(answers[2]!.status, 401);
    const everything = [...answers.map((a) => a.text), ...lines, await metrics.registry.metrics()].join("\n");
    assert.ok(!everything.includes(secret), `${secret} leaked`);
    assert.ok(!everything.includes(decodeURIComponent(secret)), `${secret} leaked (decoded)`);
    assert.ok(!everything.includes(TOKEN), "the bearer token leaked");
    // The status does say what is wrong.
    assert.match(answers[0]!.text, /CredentialsInURL|credentials/);
  }
});
