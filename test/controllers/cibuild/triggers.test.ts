import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { normalizeRepoUrl, refMatchesRevision } from "../../../src/controllers/cibuild/git-url.ts";
import { ANNOTATION_PUSHED_COMMIT, computeBuildHash } from "../../../src/controllers/cibuild/naming.ts";
import { validateSpec } from "../../../src/controllers/cibuild/validate.ts";
import { PROBE_SCRIPT, pollSlotStart } from "../../../src/controllers/cibuild/probe-job.ts";
import { readPushAnnotation } from "../../../src/controllers/cibuild/triggers.ts";
import { customizeCIBuild } from "../../../src/controllers/cibuild/customize.ts";
import { SEED_SPECS, SHA, SHA2, childOf, parent, request, sync } from "./world.ts";

const go = SEED_SPECS["build-go"]!;

test("repository URLs: every form a user or a provider writes normalises to one identity", () => {
  const same = [
    "https://github.com/Org/Repo.git",
    "https://GitHub.com/Org/Repo",
    "https://github.com:443/Org/Repo/",
    "ssh://git@github.com/Org/Repo.git",
    "ssh://git@GITHUB.COM:22/Org/Repo",
    "git@github.com:Org/Repo.git",
    "github.com:Org/Repo",
    "git://github.com/Org/Repo.git",
  ];
  for (const url of same) assert.equal(normalizeRepoUrl(url), "github.com/Org/Repo", url);
  assert.equal(normalizeRepoUrl("ssh://git@gitlab.example.com:2222/g/sub/p.git"), "gitlab.example.com:2222/g/sub/p");
  assert.notEqual(normalizeRepoUrl("https://github.com/Org/Repo"), normalizeRepoUrl("https://github.com/Org/Repo2"));
  assert.notEqual(normalizeRepoUrl("https://github.com/org/repo"), normalizeRepoUrl("https://github.com/Org/Repo"), "paths keep their case");
  assert.equal(normalizeRepoUrl("file:///tmp/x"), undefined);
  assert.equal(normalizeRepoUrl("not a url"), undefined);
});

test("repository URLs: normalising is idempotent on any https URL (property)", () => {
  fc.assert(
    fc.property(fc.webUrl({ withFragments: false, withQueryParameters: false }), (url) => {
      const n = normalizeRepoUrl(url);
      if (n === undefined) return;
      assert.equal(normalizeRepoUrl(`https://${n}`), n);
    }),
  );
});

test("ref matching: branch, tag, full ref, default branch", () => {
  assert.ok(refMatchesRevision("main", "refs/heads/main", false));
  assert.ok(refMatchesRevision("v1.0", "refs/tags/v1.0", false));
  assert.ok(!refMatchesRevision("main", "refs/heads/feature/main", false));
  assert.ok(!refMatchesRevision("main", "refs/heads/mainline", false));
  assert.ok(refMatchesRevision("refs/heads/main", "refs/heads/main", false));
  assert.ok(refMatchesRevision("", "refs/heads/trunk", true));
  assert.ok(!refMatchesRevision("", "refs/heads/trunk", false));
  assert.ok(!refMatchesRevision("", "refs/tags/v1", true));
});

test("build hash: unchanged without a commit; the commit enters it; triggers never do", () => {
  assert.equal(computeBuildHash(go), "c50f2918c7", "the seed's go sample keeps its hash");
  assert.equal(computeBuildHash({ ...go, triggers: { poll: { interval: "5m" } } }), "c50f2918c7");
  assert.notEqual(computeBuildHash(go, SHA), computeBuildHash(go, SHA2));
  assert.equal(computeBuildHash(go, SHA), computeBuildHash({ ...go, triggers: { push: { secretRef: { name: "s" } } } }, SHA));
  assert.notEqual(computeBuildHash(go, SHA), computeBuildHash({ ...go, rebuildToken: "x" }, SHA), "rebuildToken still forces a rebuild");
});

test("validation: poll interval from 1m to 24h, a valid Secret name, and no triggers on a pinned SHA", () => {
  const reasons = (spec: unknown) => validateSpec(spec).map((p) => p.reason);
  assert.deepEqual(reasons({ ...go, triggers: { poll: { interval: "1m" } } }), []);
  assert.deepEqual(reasons({ ...go, triggers: { poll: { interval: "59s" } } }), ["InvalidTrigger"]);
  assert.deepEqual(reasons({ ...go, triggers: { poll: { interval: "25h" } } }), ["InvalidTrigger"]);
  assert.deepEqual(reasons({ ...go, triggers: { poll: { interval: "often" } } }), ["InvalidTrigger"]);
  assert.deepEqual(reasons({ ...go, triggers: { push: { secretRef: { name: "Bad_Name" } } } }), ["InvalidTrigger"]);
  assert.deepEqual(reasons({ ...go, triggers: { push: {} } }), ["InvalidTrigger"], "secretRef is required");
  assert.deepEqual(reasons({ ...go, SCMBranch: SHA, triggers: { poll: {} } }), ["InvalidTrigger"]);
});

test("push annotation: malformed, oversized or foreign values are ignored, never fatal", () => {
  const with_ = (value: string) => parent(go, {}) && { ...parent(go), metadata: { ...parent(go).metadata, annotations: { [ANNOTATION_PUSHED_COMMIT]: value } } };
  const good = { sha: SHA, ref: "refs/heads/main", repository: "github.com/victorpaulo/microservices", seenAt: "2026-03-02T10:00:00Z" };
  assert.deepEqual(readPushAnnotation(with_(JSON.stringify(good))), good);
  for (const bad of ["{", "[]", "null", JSON.stringify({ ...good, sha: "HEAD" }), JSON.stringify({ ...good, ref: "main" }), JSON.stringify({ ...good, seenAt: "yesterday" }), JSON.stringify({ ...good, repository: "x".repeat(3000) })]) {
    assert.equal(readPushAnnotation(with_(bad)), undefined, bad.slice(0, 60));
  }
});

test("poll slots: one per interval, spread by the CIBuild's uid, never moving backwards", () => {
  fc.assert(
    fc.property(fc.integer({ min: 1_700_000_000, max: 2_000_000_000 }), fc.integer({ min: 60, max: 86400 }), fc.string(), (now, interval, seed) => {
      const slot = pollSlotStart(now, interval, seed);
      assert.ok(slot <= now && now < slot + interval);
      assert.equal(pollSlotStart(slot, interval, seed), slot);
      assert.equal(pollSlotStart(slot + interval, interval, seed), slot + interval);
    }),
  );
});

test("sync with poll: no build before the first probe answers; the probe Job is hardened and wakes the hook", () => {
  const spec = { ...go, triggers: { poll: { interval: "5m" } } };
  const res = sync(request({ parent: parent(spec) }), "2026-03-02T10:00:05Z");
  const jobs = res.children.filter((c) => c.kind === "Job");
  assert.equal(jobs.length, 1);
  const probe = jobs[0] as any;
  assert.match(probe.metadata.name, /^build-go-p[0-9a-f]{9}$/);
  const pod = probe.spec.template.spec;
  assert.equal(pod.automountServiceAccountToken, false);
  assert.equal(pod.containers[0].securityContext.runAsNonRoot, true);
  assert.deepEqual(pod.containers[0].securityContext.capabilities, { drop: ["ALL"] });
  assert.equal(pod.volumes[0].secret.secretName, "git-creds");
  assert.equal(probe.spec.template.metadata.labels["cicd.cicd.com/build-hash"], "probe", "selected by the customize hook's one rule");
  assert.ok((res.resyncAfterSeconds ?? 0) > 0 && (res.resyncAfterSeconds ?? 0) <= 300.1);
  const status = res.status as any;
  assert.equal(status.phase, "Pending");
  assert.equal(status.conditions.find((c: any) => c.type === "UpToDate").reason, "WaitingForCommit");
  // The customize hook is unchanged: probe Pods carry the build-hash label it already selects.
  assert.deepEqual(customizeCIBuild({ parent: parent(spec) } as any), customizeCIBuild({ parent: parent(go) } as any));
});

test("sync with push: a recorded push pins the build Job to the pushed commit", () => {
  const spec = { ...go, triggers: { push: { secretRef: { name: "cibuild-webhook" } } } };
  const p = parent(spec);
  p.metadata.annotations = {
    [ANNOTATION_PUSHED_COMMIT]: JSON.stringify({ sha: SHA2, ref: "refs/heads/master", repository: "github.com/victorpaulo/microservices", defaultBranch: true, seenAt: "2026-03-02T10:00:01Z" }),
  };
  const res = sync(request({ parent: p }), "2026-03-02T10:00:05Z");
  const job = childOf(res, "Job") as any;
  assert.equal(job.metadata.name, `build-go-${computeBuildHash(spec, SHA2)}`);
  assert.ok(job.spec.template.spec.initContainers[0].args.includes(`--ref=${SHA2}`));
  const status = res.status as any;
  assert.deepEqual(status.latestCommit, { sha: SHA2, ref: "HEAD", repository: "github.com/victorpaulo/microservices", seenAt: "2026-03-02T10:00:01Z", via: "push" });
  assert.equal(status.currentBuild.commitSHA, SHA2);
  assert.equal(res.resyncAfterSeconds, undefined, "push only: no timer");
  // A push to another repository or branch is ignored.
  p.metadata.annotations[ANNOTATION_PUSHED_COMMIT] = JSON.stringify({ sha: SHA2, ref: "refs/heads/dev", repository: "github.com/victorpaulo/microservices", seenAt: "2026-03-02T10:00:01Z" });
  assert.equal((childOf(sync(request({ parent: p }), "2026-03-02T10:00:05Z"), "Job") as any).metadata.name, "build-go-c50f2918c7");
});

test("the probe script reads user values only from env and writes only the termination log", () => {
  assert.ok(!PROBE_SCRIPT.includes("${{"));
  assert.match(PROBE_SCRIPT, /"\$GIT_URL"/);
  assert.match(PROBE_SCRIPT, /\/dev\/termination-log/);
});

test("the probe script against a real git repository: branch head, peeled annotated tag, default branch, missing ref", async () => {
  const { execFileSync, spawnSync } = await import("node:child_process");
  const { mkdtempSync, readFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const dir = mkdtempSync(join(tmpdir(), "probe-"));
  try {
    const git = (...args: string[]) => execFileSync("git", ["-C", join(dir, "repo"), ...args], { encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@x", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@x" } }).trim();
    execFileSync("git", ["init", "-q", "-b", "main", join(dir, "repo")]);
    git("commit", "-q", "--allow-empty", "-m", "one");
    const first = git("rev-parse", "HEAD");
    git("tag", "-a", "-m", "v1", "v1");
    git("commit", "-q", "--allow-empty", "-m", "two");
    const second = git("rev-parse", "HEAD");
    const log = join(dir, "termination-log");
    const script = PROBE_SCRIPT.replaceAll("/tmp/", `${dir}/`).replaceAll("/dev/termination-log", log);
    const probe = (ref: string) => {
      const r = spawnSync("sh", ["-c", script], { env: { PATH: process.env.PATH, HOME: dir, GIT_URL: join(dir, "repo"), GIT_REF: ref }, encoding: "utf8" });
      return { code: r.status, message: readFileSync(log, "utf8") };
    };
    assert.deepEqual(probe("main"), { code: 0, message: second });
    assert.deepEqual(probe("HEAD"), { code: 0, message: second });
    assert.deepEqual(probe("refs/heads/main"), { code: 0, message: second });
    assert.deepEqual(probe("v1"), { code: 0, message: first }, "the commit the annotated tag points at, not the tag object");
    assert.deepEqual(probe("nope"), { code: 3, message: "RefNotFound: the remote has no ref nope\n" });
    const broken = spawnSync("sh", ["-c", script], { env: { PATH: process.env.PATH, HOME: dir, GIT_URL: join(dir, "missing"), GIT_REF: "main" }, encoding: "utf8" });
    assert.equal(broken.status, 1);
    assert.match(readFileSync(log, "utf8"), /^PollFailed: /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("defaulting (mutating webhook) fills trigger defaults only where triggers exist", async () => {
  const { defaultSpec } = await import("../../../src/controllers/cibuild/validate.ts");
  const out = defaultSpec({ ...go, triggers: { poll: {} } }) as any;
  assert.deepEqual(out.triggers, { poll: { interval: "5m" }, cancelInProgress: true });
  assert.equal((defaultSpec(go) as any).triggers, undefined);
  assert.equal(computeBuildHash(out), computeBuildHash(defaultSpec(go)), "trigger defaults never change the hash");
});

test("a failing probe says why in UpToDate (PollFailed with git's error) and builds nothing", async () => {
  const { readFileSync } = await import("node:fs");
  const req = JSON.parse(readFileSync("test/fixtures/cibuild/triggers-poll-answered/request.json", "utf8"));
  const pod = Object.values<any>(req.related["Pod.v1"])[0];
  pod.status.containerStatuses[0].state.terminated = { exitCode: 1, reason: "Error", message: "PollFailed: fatal: could not read Username for 'https://github.com': terminal prompts disabled\n", startedAt: "2026-03-02T10:00:07Z", finishedAt: "2026-03-02T10:00:08Z" };
  pod.status.phase = "Failed";
  const res = sync(req, "2026-03-02T10:00:10Z");
  const up = (res.status as any).conditions.find((c: any) => c.type === "UpToDate");
  assert.equal(up.reason, "PollFailed");
  assert.match(up.message, /could not read Username/);
  assert.equal(res.children.filter((c) => c.kind === "Job").length, 1, "only the probe; no build");
});

test("switching from poll to push only deletes the probe Jobs (the answer stays in status.latestCommit)", async () => {
  const { readFileSync } = await import("node:fs");
  const req = JSON.parse(readFileSync("test/fixtures/cibuild/triggers-poll-answered/request.json", "utf8"));
  const first = sync(structuredClone(req), "2026-03-02T10:00:10Z");
  req.parent.spec = { ...req.parent.spec, triggers: { push: { secretRef: { name: "cibuild-webhook" } } } };
  req.parent.status = first.status;
  const res = sync(req, "2026-03-02T10:00:20Z");
  assert.deepEqual(res.children.filter((c) => c.kind === "Job" && c.metadata.labels?.["cicd.cicd.com/probe"]), []);
  assert.equal((res.status as any).latestCommit.sha, SHA, "the polled commit is remembered");
});
