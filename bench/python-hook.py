"""A minimal CronJob sync hook of the kind Metacontroller's own Python examples are (e.g.
examples/indexedjob/manifest/sync.py): stdlib http.server + json, no validation, no structured
logging, no metrics. It keeps every observed Job (re-emitted without status, so its answer is as large as
ours) and builds one Job for the current minute when it is missing. Like the examples it logs
each call to stderr (http.server's access line); the bench sends that to /dev/null, as it does
with our log lines.

Server class: plain ``HTTPServer`` (one request at a time, as the examples use), with the
handler's default ``HTTP/1.0``: the answer has no Content-Length and the connection closes after
each call, so a client (Metacontroller included) connects once per call.

Usage: python3 bench/python-hook.py [now-epoch-seconds]; prints {"hookUrl": ...} on stdout.
"""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

NOW = float(sys.argv[1]) if len(sys.argv) > 1 else None


def sync(parent, children):
    now = NOW if NOW is not None else time.time()
    name = parent["metadata"]["name"]
    namespace = parent["metadata"].get("namespace")
    desired = []
    for job in (children.get("Job.batch/v1") or {}).values():
        meta = job["metadata"]
        desired.append({
            "apiVersion": job["apiVersion"],
            "kind": job["kind"],
            "metadata": {"name": meta["name"], "namespace": meta.get("namespace"),
                         "labels": meta.get("labels", {}), "annotations": meta.get("annotations", {})},
            "spec": job.get("spec", {}),
        })
    minute = int(now // 60)
    job_name = "%s-%d" % (name, minute)
    if not any(j["metadata"]["name"] == job_name for j in desired):
        template = parent["spec"]["jobTemplate"]
        desired.append({
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": job_name, "namespace": namespace,
                         "labels": template.get("metadata", {}).get("labels", {})},
            "spec": template["spec"],
        })
    last = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(minute * 60))
    status = {"lastScheduleTime": last, "active": []}
    return {"status": status, "children": desired, "resyncAfterSeconds": 60 - now % 60 + 0.1}


class Controller(BaseHTTPRequestHandler):
    def do_POST(self):
        observed = json.loads(self.rfile.read(int(self.headers.get("content-length"))))
        desired = sync(observed["parent"], observed["children"])
        self.send_response(200)
        self.send_header("Content-type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(desired).encode())


server = HTTPServer(("127.0.0.1", 0), Controller)
print(json.dumps({"hookUrl": "http://127.0.0.1:%d" % server.server_address[1]}), flush=True)
server.serve_forever()
