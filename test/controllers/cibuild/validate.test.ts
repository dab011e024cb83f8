import { test } from "node:test";
import assert from "node:assert/strict";
import {
  checkSpec,
  classifyGitUrl,
  defaultSpec,
  normalizeSpec,
  parseDurationSeconds,
  validateSpec,
} from "../../../src/controllers/cibuild/validate.ts";
import { parseImageReference } from "../../../src/controllers/cibuild/image-ref.ts";
import { ciBuildAdmission } from "../../../src/controllers/cibuild/index.ts";
import { CIBuildSpecSchema } from "../../../src/controllers/cibuild/schema.ts";
import { SEED_SPECS, parent } from "./world.ts";

const go = SEED_SPECS["build-go"]!;
const reasons = (spec: unknown) => validateSpec(spec).map((p) => p.reason);

test("every seed sample is valid", () => {
  for (const spec of Object.values(SEED_SPECS)) assert.deepStrictEqual(validateSpec(spec), []);
});

test("each SpecValid=False reason is detected", () => {
  const table: Array<[unknown, string]> = [
    [{ ...go, source: { git: { url: "git@github.com:o/other.git" } } }, "ConflictingFields"],
    [{ ...go, subContext: "app2", source: { contextDir: "app1" } }, "ConflictingFields"],
    [{ imageDestination: "r/a:1" }, "MissingRepoURL"],
    [{ ...go, SCMRepoURL: "file:///etc/passwd" }, "InvalidGitURL"],
    [{ ...go, SCMRepoURL: "FILE://localhost/srv/repo.git" }, "InvalidGitURL"],
    [{ ...go, SCMRepoURL: "ext::touch%G/pwned" }, "InvalidGitURL"],
    [{ ...go, SCMRepoURL: "fd::17" }, "InvalidGitURL"],
    [{ ...go, SCMRepoURL: "fd::7,8/repo" }, "InvalidGitURL"],
    [{ ...go, SCMRepoURL: "git-remote-x::host:o/r" }, "InvalidGitURL"],
    [{ ...go, SCMRepoURL: "persistent-https::https://h.example/o/r.git" }, "InvalidGitURL"],
    [{ ...go, SCMRepoURL: "::relative/path" }, "InvalidGitURL"],
    [{ ...go, SCMRepoURL: "-uhttps://x" }, "InvalidGitURL"],
    [{ ...go, SCMRepoURL: "https://github.com/o/r.git?private_token=abc" }, "InvalidGitURL"],
    [{ ...go, SCMRepoURL: "https://user:pw@github.com/o/r.git" }, "CredentialsInURL"],
    [{ ...go, SCMRepoURL: "https://ghp_token@github.com/o/r.git" }, "CredentialsInURL"],
    [{ ...go, SCMRepoURL: "ssh://git:pw@github.com/o/r.git" }, "CredentialsInURL"],
    [{ ...go, SCMRepoURL: "git:pw@github.com:o/r.git" }, "CredentialsInURL"],
    [{ SCMRepoURL: "ssh://git@github.com/o/r.git", imageDestination: "r/a" }, "MissingCloneSecret"],
    [{ ...go, SCMBranch: "main..dev" }, "InvalidRevision"],
    [{ ...go, SCMBranch: "-x" }, "InvalidRevision"],
    [{ SCMRepoURL: go.SCMRepoURL, SCMSecret: "s" }, "MissingImageDestination"],
    [{ ...go, imageDestination: "Registry/UPPER:1" }, "InvalidImageReference"],
    [{ ...go, imageDestination: "r/a@sha256:abc" }, "InvalidImageReference"],
    [{ ...go, output: { image: go.imageDestination, additionalTags: ["bad tag"] } }, "InvalidImageReference"],
    [{ ...go, subContext: "/abs" }, "InvalidContextDir"],
    [{ ...go, subContext: "a/../../b" }, "InvalidContextDir"],
    [{ ...go, subContext: "a\nb" }, "InvalidContextDir"],
    [{ ...go, build: { dockerfile: "../Dockerfile" } }, "InvalidDockerfilePath"],
    [{ ...go, build: { buildArgs: [{ name: "A" }, { name: "A" }] } }, "InvalidBuildArg"],
    [{ ...go, build: { buildArgs: [{ name: "A-B", value: "x" }] } }, "InvalidBuildArg"],
    [{ ...go, build: { timeout: "0s" } }, "InvalidTimeout"],
    [{ ...go, build: { timeout: "30 minutes" } }, "InvalidTimeout"],
    [{ ...go, build: { strategy: "docker" } }, "UnsupportedStrategy"],
    [{ ...go, build: { retries: 9 } }, "InvalidField"],
    [{ ...go, SCMSecret: "Not_A_Name" }, "InvalidField"],
    [{ ...go, deploy: { port: 70000 } }, "InvalidField"],
    [{ ...go, build: { target: "base,runtime" } }, "InvalidField"],
    [{ ...go, build: { target: '"runtime"' } }, "InvalidField"],
    [{ ...go, build: { target: "run'time" } }, "InvalidField"],
    [{ ...go, deploy: { resources: { limits: { cpu: "lots" } } } }, "InvalidField"],
  ];
  for (const [spec, reason] of table) assert.equal(reasons(spec)[0], reason, `${JSON.stringify(spec)} → ${reason}`);
});

test("problems come in the documented check order and the first one wins", () => {
  const all = reasons({
    SCMRepoURL: "https://u:p@h/r.git",
    source: { git: { url: "https://other/r.git" }, contextDir: "../x" },
    SCMBranch: "-bad",
    imageDestination: "UP@sha256:1",
    build: { dockerfile: "/x", buildArgs: [{ name: "1" }], timeout: "x", strategy: "nope" },
  });
  assert.deepStrictEqual(all, [
    "ConflictingFields",
    "CredentialsInURL",
    "InvalidRevision",
    "InvalidImageReference",
    "InvalidContextDir",
    "InvalidDockerfilePath",
    "InvalidBuildArg",
    "InvalidTimeout",
    "UnsupportedStrategy",
  ]);
});

test("credentials in a URL are never echoed in any message", () => {
  for (const url of ["https://alice:Sup3rS3cret@git.example.com/r.git", "https://Sup3rS3cret@git.example.com/r.git", "ssh://git:Sup3rS3cret@h/r.git", "git:Sup3rS3cret@h:r.git"]) {
    const problems = validateSpec({ ...go, SCMRepoURL: url });
    assert.equal(problems[0]?.reason, "CredentialsInURL", url);
    assert.ok(!JSON.stringify(problems).includes("Sup3rS3cret"), url);
  }
});

test("git URL forms", () => {
  assert.deepStrictEqual(classifyGitUrl("git@github.com:victorpaulo/microservices.git"), { transport: "ssh" });
  assert.deepStrictEqual(classifyGitUrl("ssh://git@github.com:2222/o/r.git"), { transport: "ssh" });
  assert.deepStrictEqual(classifyGitUrl("https://github.com/o/r.git"), { transport: "https" });
  assert.equal((classifyGitUrl("http://github.com/o/r.git") as { reason: string }).reason, "InvalidGitURL");
  assert.equal((classifyGitUrl("/local/path") as { reason: string }).reason, "InvalidGitURL");
  // ssh reads a host or user starting with - as an option (CVE-2017-1000117).
  for (const url of ["ssh://-oProxyCommand=touch%20x/r.git", "ssh://-host.example/r.git", "git@-host:o/r.git", "-x@host:o/r.git", "ssh://-u@host.example/r.git"]) {
    assert.equal((classifyGitUrl(url) as { reason: string }).reason, "InvalidGitURL", url);
  }
  assert.deepEqual(classifyGitUrl("ssh://git@my-host.example/r.git"), { transport: "ssh" });
  assert.equal((classifyGitUrl("git@github.com:o/r.git x") as { reason: string }).reason, "InvalidGitURL");
  // git runs `git-remote-<transport>` for any `<transport>::<address>` (transport.c
  // transport_get), ext:: runs a command; an IPv6 scp-like host is not such a prefix.
  for (const url of ["ext::sh", "fd::0", "foo::bar", "a.b+c-d::x", "ssh::github.com/o/r.git", "::x"]) {
    assert.match((classifyGitUrl(url) as { message: string }).message, /remote helper/, url);
  }
  assert.deepEqual(classifyGitUrl("git@[::1]:o/r.git"), { transport: "ssh" });
  assert.deepEqual(classifyGitUrl("ssh://git@[::1]:2222/o/r.git"), { transport: "ssh" });
});

test("image references: the registry port is not a tag; digests are refused", () => {
  assert.deepStrictEqual(parseImageReference("kind-registry:5000/ace-test:1.0"), { repository: "kind-registry:5000/ace-test", tag: "1.0" });
  assert.deepStrictEqual(parseImageReference("kind-registry:5000/ace-test"), { repository: "kind-registry:5000/ace-test" });
  assert.deepStrictEqual(parseImageReference("nginx"), { repository: "nginx" });
  assert.deepStrictEqual(parseImageReference("localhost/a/b_c:v1"), { repository: "localhost/a/b_c", tag: "v1" });
  assert.ok("problem" in parseImageReference("nginx@sha256:abc"));
  assert.ok("problem" in parseImageReference("host:port/a"));
  assert.ok("problem" in parseImageReference("a:b:c"));
});

test("image references: the message names the real problem; only a digest is called a digest", () => {
  const problem = (v: string) => (parseImageReference(v) as { problem: string }).problem;
  const DIGEST = /must not contain a digest/;
  assert.match(problem("nginx@sha256:7d865e959b2466918c9863afca942d0fb89d7c9ac0c99bafc3749504ded97730"), DIGEST);
  assert.match(problem("kind-registry:5000/app:1.0@sha256:abc"), DIGEST);
  for (const bad of ["bad image@@", "bad image", "app\u0000", "ключ:1", "app:1.0\n"]) {
    assert.match(problem(bad), /contains characters an image reference cannot have/, JSON.stringify(bad));
  }
  for (const bad of ["nginx@@", "nginx@", "a@b", "nginx@sha256"]) {
    const message = problem(bad);
    assert.doesNotMatch(message, DIGEST, bad);
    assert.match(message, /'@' that does not start a digest/, bad);
  }
  // Through the hook's validation too, never echoing the value.
  const sync = checkSpec({ SCMRepoURL: "https://github.com/o/r.git", imageDestination: "bad image@@" });
  assert.equal(sync.valid, false);
  const first = (sync as { problems: { reason: string; message: string }[] }).problems[0]!;
  assert.equal(first.reason, "InvalidImageReference");
  assert.doesNotMatch(first.message, /digest|bad image/);
});

test("build.timeout is a Go duration (the grammar of CronJob @every too), in whole seconds", () => {
  assert.equal(parseDurationSeconds("30m"), 1800);
  assert.equal(parseDurationSeconds("1h30m"), 5400);
  assert.equal(parseDurationSeconds("45s"), 45);
  assert.equal(parseDurationSeconds("1.5h"), 5400);
  assert.equal(parseDurationSeconds("90.9s"), 90);
  assert.equal(parseDurationSeconds(""), undefined);
  assert.equal(parseDurationSeconds("5"), undefined);
  assert.equal(parseDurationSeconds("-5m"), undefined);
  assert.equal(parseDurationSeconds("forever"), undefined);
});

test("legacy mode defaults the push to insecure (the seed's kind registry is plain HTTP); structured output does not", () => {
  const legacy = checkSpec(go);
  assert.ok(legacy.valid);
  assert.equal(legacy.spec.legacyMode, true);
  assert.equal(legacy.spec.output.insecure, true);
  assert.equal(legacy.spec.contextDir, "app1");
  assert.equal(legacy.spec.git.cloneSecret, "git-creds");
  assert.equal(legacy.spec.git.revision, "");
  const structured = checkSpec({ source: { git: { url: "https://h/o/r.git" } }, output: { image: "r.example.com/a:1" } });
  assert.ok(structured.valid);
  assert.equal(structured.spec.output.insecure, false);
  assert.equal(structured.spec.build.timeoutSeconds, 1800);
  assert.equal(structured.spec.build.retries, 1);
  assert.deepStrictEqual(structured.spec.retention, { succeededLimit: 2, failedLimit: 2 });
  // Equal twins are accepted.
  assert.ok(checkSpec({ ...go, source: { git: { url: go.SCMRepoURL } }, output: { image: go.imageDestination } }).valid);
});

test("normalizeSpec refuses an unvalidated spec", () => {
  assert.throws(() => normalizeSpec(CIBuildSpecSchema.parse({})));
});

test("defaultSpec writes defaults where unset, never touches legacy fields, keeps legacy mode, is idempotent", () => {
  const out = defaultSpec(go) as Record<string, any>;
  for (const key of Object.keys(go)) assert.equal(out[key], go[key]);
  assert.equal(out.output, undefined, "legacy mode kept");
  assert.equal(out.source.git.url, undefined, "no structured twin added");
  assert.equal(out.source.contextDir, undefined);
  assert.equal(out.build.timeout, "30m");
  assert.equal(out.deploy.replicas, 1);
  assert.deepStrictEqual(defaultSpec(out), out);
  assert.deepStrictEqual(validateSpec(out), []);
  const a = checkSpec(go);
  const b = checkSpec(out);
  assert.ok(a.valid && b.valid);
  assert.deepStrictEqual(b.spec, a.spec, "writing the defaults out does not change their meaning");
  const withOutput = defaultSpec({ ...go, imageDestination: undefined, output: { image: "r/a:1" }, deploy: { port: 8080 } }) as Record<string, any>;
  assert.equal(withOutput.output.insecure, false);
  assert.equal(withOutput.deploy.servicePort, 8080);
  assert.equal(defaultSpec("nonsense"), "nonsense");
  const user = { ...go, build: { retries: 3 } };
  assert.equal((defaultSpec(user) as any).build.retries, 3);
});

test("admission validate: create and update share the sync hook's rules", () => {
  assert.deepStrictEqual(ciBuildAdmission.validate(parent(go)), []);
  const conflicting = { ...go, source: { git: { url: "git@github.com:victorpaulo/other.git" } } };
  const created = ciBuildAdmission.validate(parent(conflicting));
  assert.equal(created[0]?.reason, "ConflictingFields");
  const updated = ciBuildAdmission.validate(parent(conflicting), parent(go));
  assert.equal(updated[0]?.reason, "ConflictingFields");
  assert.match(updated[0]!.message, /switches from spec\.SCMRepoURL to spec\.source\.git\.url/);
  assert.deepStrictEqual(ciBuildAdmission.validate(parent({ ...go, SCMRepoURL: undefined, source: { git: { url: "git@github.com:victorpaulo/other.git" } } }), parent(go)), []);
});
