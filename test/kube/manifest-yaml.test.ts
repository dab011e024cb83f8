/**
 * Manifests are read as kubectl reads them. The oracle is the real thing: helm v4's `fromYaml`,
 * which is `sigs.k8s.io/yaml` (go-yaml v2's YAML 1.1 rules), the library kubectl uses too.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseManifests } from "../../src/kube/manifest-yaml.ts";
import { readCronJobs } from "../../src/cli/simulate.ts";
import { syncAt } from "../../src/testing/index.ts";
import { runHelm } from "../helpers/helm.ts";

/** Plain scalars whose meaning differs between YAML 1.1 (kubectl) and 1.2, and ones that do not. */
const SCALARS = {
  octal: "0500",
  goOctal: "0o17",
  negativeOctal: "-017",
  notOctal: "09",
  hex: "0x1F",
  binary: "0b101",
  underscores: "1_000",
  floatUnderscores: "685_230.15",
  exponent: "1e3",
  leadingDot: ".5",
  trailingDot: "1.",
  plus: "+12",
  minusZero: "-0",
  yesWord: "yes",
  YesWord: "Yes",
  yLetter: "y",
  YLetter: "Y",
  noWord: "no",
  nLetter: "n",
  onWord: "on",
  OffWord: "Off",
  TrueWord: "True",
  tilde: "~",
  nullUpper: "NULL",
  date: "2026-03-26",
  timestamp: "2026-03-26T10:00:00Z",
  sexagesimal: "190:20:30",
  clock: "1:30",
  quotedYes: '"yes"',
  quotedOctal: "'0500'",
  taggedString: "!!str 0500",
  schedule: '"*/5 * * * *"',
  // Text a YAML 1.1 number pattern matches with no digits: strings for go-yaml v2, not NaN.
  dot: ".",
  minusDot: "-.",
  bareExponent: "e3",
  dotExponent: ".e3",
  hexNoDigits: "0x_",
  binaryNoDigits: "0b_",
};

function yamlOf(): string {
  const lines = Object.entries(SCALARS).map(([k, v]) => `${k}: ${v}`);
  // Keys are scalars too (`on:` is GitHub Actions' famous `true:`), and merge keys are YAML 1.1.
  lines.push("on: 2", "base: &b {k1: 1}", "merged: {<<: *b, k2: 2}");
  return lines.join("\n") + "\n";
}

test("manifests read like kubectl reads them: the same JSON as helm's fromYaml (sigs.k8s.io/yaml)", () => {
  const text = yamlOf();
  const chart = mkdtempSync(join(tmpdir(), "metahooks-yaml-oracle-"));
  try {
    mkdirSync(join(chart, "templates"));
    writeFileSync(join(chart, "Chart.yaml"), "apiVersion: v2\nname: oracle\nversion: 0.1.0\n");
    writeFileSync(join(chart, "in.yaml"), text);
    writeFileSync(join(chart, "templates", "out.yaml"), '{{ .Files.Get "in.yaml" | fromYaml | toJson }}\n');
    const helm = runHelm(["template", chart]);
    assert.equal(helm.status, 0, helm.stderr);
    const json = helm.stdout.slice(helm.stdout.indexOf("{"));
    const kubectl = JSON.parse(json);
    assert.equal(kubectl.Error, undefined, `helm could not read it: ${kubectl.Error}`);
    // Compared as JSON (what hooks receive): -0 and 0 are the same there.
    assert.deepEqual(JSON.parse(JSON.stringify(parseManifests(text))), [kubectl]);
    // The traps, spelled out (the oracle says the same).
    assert.equal(kubectl.octal, 320);
    assert.equal(kubectl.yesWord, true);
    assert.equal(kubectl.OffWord, false);
    assert.equal(kubectl.date, "2026-03-26");
    assert.equal(kubectl.clock, "1:30");
    assert.equal(kubectl.true, 2);
    assert.equal(kubectl.dot, ".");
    assert.equal(kubectl.bareExponent, "e3");
  } finally {
    rmSync(chart, { recursive: true, force: true });
  }
});

test("parseManifests: every document, empty ones left out; syntax errors give a position; alias bombs are refused", () => {
  assert.deepEqual(parseManifests("a: 1\n---\n---\nb: yes\n"), [{ a: 1 }, { b: true }]);
  assert.deepEqual(parseManifests('{"apiVersion": "v1", "kind": "List", "items": []}'), [{ apiVersion: "v1", kind: "List", items: [] }]);
  assert.deepEqual(parseManifests(""), []);
  // `y:` and `on:` are both the key true. go-yaml v2 would keep the last; the API server (field
  // validation Strict, kubectl's default since 1.27) rejects duplicate fields, and so do we.
  assert.throws(() => parseManifests("y: 1\non: 2\n"), /unique/);
  assert.throws(() => parseManifests("a: [1, 2\n"), /line \d+, column \d+/);
  const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < 8; i++) bomb.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill("*" + String.fromCharCode(96 + i)).join(", ")}]`);
  assert.throws(() => parseManifests(bomb.join("\n")), /alias/i);
});

const CRONJOB = (specLine: string) => `apiVersion: batch.tutorial.kubebuilder.io/v1
kind: CronJob
metadata: {name: backup, namespace: ops}
spec:
  schedule: "0 3 * * *"
  ${specLine}
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: c, image: "busybox:1.37.0"}]
`;

test("simulate and metahooks/testing see the CronJob the cluster stores: `suspend: yes` suspends, `0500` is 320 seconds", () => {
  assert.equal(readCronJobs(CRONJOB("startingDeadlineSeconds: 0500"), "b.yaml")[0]!.spec.startingDeadlineSeconds, 320);
  assert.equal(readCronJobs(CRONJOB("suspend: yes"), "b.yaml")[0]!.spec.suspend, true);
  // A container argument `.` stays a dot (it read as NaN, then null in the Job).
  const dot = syncAt(CRONJOB("suspend: false").replace('containers: [{name: c, image: "busybox:1.37.0"}]', 'containers: [{name: c, image: "busybox:1.37.0", args: [find, ., -name, x]}]'), "2026-03-26T03:00:30Z");
  assert.deepEqual(dot.created[0]!.spec.template.spec.containers[0].args, ["find", ".", "-name", "x"]);
  const run = syncAt(CRONJOB("suspend: on"), "2026-03-26T03:00:30Z");
  assert.equal(run.condition("Ready")?.reason, "Suspended");
  assert.equal(run.created.length, 0);
});
