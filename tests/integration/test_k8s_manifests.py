#!/usr/bin/env python3
"""docker/k8s/ passes validate_k8s_manifests.py, and the validator catches what it is for:
a misspelt field, a wrong enum value, a wrong type, an unknown ARBITER_* variable, too few
health pings per period, a player capacity that is not the server's slot count.

Usage: test_k8s_manifests.py K8S_DIR ARBITER_SERVER"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
K8S, SERVER = sys.argv[1], sys.argv[2]


def validate(directory):
    r = subprocess.run([sys.executable, os.path.join(HERE, "validate_k8s_manifests.py"), directory, SERVER],
                       capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout + r.stderr


# (file, text to replace, replacement, a phrase the validator must report)
BREAKAGES = [
    ("fleet.yaml", "periodSeconds: 5", "periodSecond: 5", "unknown field 'periodSecond'"),
    ("gameserver.yaml", "portPolicy: Dynamic", "portPolicy: dynamic", "is not one of"),
    ("fleet.yaml", "bufferSize: 2", "bufferSize: [2]", "expected int-or-string"),
    ("fleet.yaml", "minReplicas: 2", "minReplicas: \"2\"", "expected integer"),
    ("gameserver.yaml", "ARBITER_EXIT_WHEN_EMPTY", "ARBITER_EXIT_WHEN_EMTPY", "not a variable arbiter-server knows"),
    ("gameserver.yaml", "periodSeconds: 5", "periodSeconds: 3", "fewer than two pings"),
    ("fleet.yaml", "initialCapacity: 64", "initialCapacity: 32", "!= ARBITER_MAX_CLIENTS"),
    ("gameserverallocation.yaml", "agones.dev/fleet: arbiter", "agones.dev/fleet: arbitre", "names fleet"),
    ("fleet.yaml", "claimName: arbiter-recordings", "claimName: recordings", "which no manifest defines"),
    ("fleet-movable.yaml", "containerPort: 7800", "containerPort: 7801", "migrate port 7800/TCP is not"),
    ("fleet-movable.yaml", "terminationGracePeriodSeconds: 30", "terminationGracePeriodSeconds: 10",
     "twice the longest move"),
    ("fleet-movable.yaml", "safe: Always", "safe: Never", "Never blocks the eviction"),
]


def main():
    failed = 0
    rc, out = validate(K8S)
    print(out.strip())
    if rc != 0:
        print("FAIL: docker/k8s does not validate")
        failed += 1
    for name, old, new, phrase in BREAKAGES:
        with tempfile.TemporaryDirectory(prefix="arb-k8s-") as d:
            for f in os.listdir(K8S):
                if f.endswith(".yaml"):
                    shutil.copy(os.path.join(K8S, f), d)
            path = os.path.join(d, name)
            text = open(path).read()
            if old not in text:
                print("FAIL: %s no longer contains %r (update this test)" % (name, old))
                failed += 1
                continue
            open(path, "w").write(text.replace(old, new, 1))
            rc, out = validate(d)
            if rc != 1 or phrase not in out:
                print("FAIL: %s with %r -> %r: exit %d, expected 1 and %r:\n%s" % (name, old, new, rc, phrase, out))
                failed += 1
            else:
                print("caught: %s %r -> %r" % (name, old, new))
    print("%d passed, %d failed" % (len(BREAKAGES) + 1 - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
