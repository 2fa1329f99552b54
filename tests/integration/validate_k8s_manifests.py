#!/usr/bin/env python3
"""Check the Kubernetes manifests in docker/k8s/ without a cluster.

1. Every document's field names and types against the schemas of the Agones CRDs, for the
   subset of fields arbiter uses (below). The subset is transcribed from Agones 1.56:
   install/helm/agones/templates/crds/_gameserverspecschema.yaml (GameServer spec),
   crds/fleet.yaml, crds/fleetautoscaler.yaml + crds/_fleetautoscalerpolicy.yaml, and
   pkg/apis/allocation/v1/gameserverallocation.go (GameServerAllocation is served by the
   Agones API server, not a CRD: its JSON field names), plus the Kubernetes core/v1 fields
   the pod template uses. A field this subset does not know is an error: a CRD's structural
   schema drops unknown fields silently, so a misspelt one would just vanish on a cluster.
2. What the manifests must agree on with each other and with arbiter-server: every
   ARBITER_* variable exists (`arbiter-server --help`), two health pings per Agones health
   period, player capacity = ARBITER_MAX_CLIENTS, the Prometheus port is a container port,
   the autoscaler and the allocation name the fleet, the volume claim exists; a server that
   moves matches (ARBITER_MIGRATE_*) has the admin token, its migrate port as a container
   port, and a grace period its move fits in.

Usage: validate_k8s_manifests.py K8S_DIR [ARBITER_SERVER]   (python3-yaml)
Exit: 0 valid, 1 problems (one line each), 2 bad usage or unreadable file."""
import glob
import os
import re
import subprocess
import sys

try:
    import yaml
except ImportError:  # Debian: python3-yaml (scripts/install-deps.sh)
    print("validate_k8s_manifests: python3-yaml is not installed", file=sys.stderr)
    sys.exit(2)

# ---- schema subset ----------------------------------------------------------------------
# A schema is a dict: {"type": "object", "properties": {...}, "required": [...]},
# {"type": "map", "values": schema} (additionalProperties), {"type": "array", "items": ...},
# {"type": "string"|"integer"|"boolean"|"int-or-string", "enum": [...], "min": .., "max": ..,
#  "pattern": regex}.

S = {"type": "string"}
I = {"type": "integer"}
B = {"type": "boolean"}
STR_MAP = {"type": "map", "values": S}
PORT = {"type": "integer", "min": 1, "max": 65535}
DNS_LABEL = {"type": "string", "pattern": r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "maxlen": 63}


def obj(props, required=()):
    return {"type": "object", "properties": props, "required": list(required)}


OBJECT_META = obj({"name": S, "generateName": S, "namespace": S, "labels": STR_MAP, "annotations": STR_MAP})

# Kubernetes core/v1 (the fields the pod template uses).
QUANTITY = {"type": "int-or-string"}
CONTAINER = obj({
    "name": DNS_LABEL, "image": S,
    "imagePullPolicy": {"type": "string", "enum": ["Always", "IfNotPresent", "Never"]},
    "args": {"type": "array", "items": S}, "command": {"type": "array", "items": S},
    "ports": {"type": "array", "items": obj({"name": S, "containerPort": PORT,
                                              "protocol": {"type": "string", "enum": ["TCP", "UDP", "SCTP"]}},
                                             ["containerPort"])},
    "env": {"type": "array", "items": obj({
        "name": S, "value": S,
        "valueFrom": obj({"fieldRef": obj({"fieldPath": S, "apiVersion": S}, ["fieldPath"])})}, ["name"])},
    "resources": obj({"requests": {"type": "map", "values": QUANTITY},
                      "limits": {"type": "map", "values": QUANTITY}}),
    "volumeMounts": {"type": "array", "items": obj({"name": S, "mountPath": S, "subPath": S, "subPathExpr": S,
                                                     "readOnly": B}, ["name", "mountPath"])},
}, ["name"])
VOLUME = obj({"name": S, "emptyDir": obj({"medium": S, "sizeLimit": QUANTITY}),
              "secret": obj({"secretName": S, "defaultMode": I, "optional": B}, ["secretName"]),
              "persistentVolumeClaim": obj({"claimName": S, "readOnly": B}, ["claimName"])}, ["name"])
POD_TEMPLATE = obj({
    "metadata": OBJECT_META,
    "spec": obj({"containers": {"type": "array", "items": CONTAINER}, "volumes": {"type": "array", "items": VOLUME},
                 "terminationGracePeriodSeconds": I, "serviceAccountName": S,
                 "nodeSelector": STR_MAP}, ["containers"]),
})

# agones.dev/v1 GameServer spec (_gameserverspecschema.yaml).
GAMESERVER_SPEC = obj({
    "template": POD_TEMPLATE,
    "container": DNS_LABEL,
    "ports": {"type": "array", "items": obj({
        "name": S, "range": S,
        "portPolicy": {"type": "string", "enum": ["Dynamic", "Static", "Passthrough", "None"]},
        "protocol": {"type": "string", "enum": ["UDP", "TCP", "TCPUDP"]},
        "container": S, "containerPort": PORT, "hostPort": PORT})},
    "sdkServer": obj({"logLevel": {"type": "string", "enum": ["Error", "Info", "Debug", "Trace"]},
                      "grpcPort": PORT, "httpPort": PORT}),
    "scheduling": {"type": "string", "enum": ["Packed", "Distributed"]},
    "health": obj({"disabled": B,
                   "initialDelaySeconds": {"type": "integer", "min": 0, "max": 2147483648},
                   "periodSeconds": {"type": "integer", "min": 0, "max": 2147483648},
                   "failureThreshold": {"type": "integer", "min": 1, "max": 2147483648}}),
    "players": obj({"initialCapacity": {"type": "integer", "min": 0}}),
    "eviction": obj({"safe": {"type": "string", "enum": ["Always", "OnUpgrade", "Never"]}}),
}, ["template"])

GAMESERVER = obj({"apiVersion": S, "kind": S, "metadata": OBJECT_META, "spec": GAMESERVER_SPEC}, ["spec"])

# agones.dev/v1 Fleet (crds/fleet.yaml).
FLEET = obj({"apiVersion": S, "kind": S, "metadata": OBJECT_META, "spec": obj({
    "replicas": {"type": "integer", "min": 0},
    "scheduling": {"type": "string", "enum": ["Packed", "Distributed"]},
    "strategy": obj({"type": {"type": "string", "enum": ["Recreate", "RollingUpdate"]},
                     "rollingUpdate": obj({"maxSurge": {"type": "int-or-string"},
                                           "maxUnavailable": {"type": "int-or-string"}})}),
    "allocationOverflow": obj({"labels": STR_MAP, "annotations": STR_MAP}),
    "template": obj({"metadata": OBJECT_META, "spec": GAMESERVER_SPEC}, ["spec"]),
}, ["template"])})

# autoscaling.agones.dev/v1 FleetAutoscaler (crds/fleetautoscaler.yaml, _fleetautoscalerpolicy.yaml).
FLEET_AUTOSCALER = obj({"apiVersion": S, "kind": S, "metadata": OBJECT_META, "spec": obj({
    "fleetName": {"type": "string", "pattern": r"^[a-z0-9]([-\.a-z0-9]*[a-z0-9])?$", "maxlen": 63},
    "policy": obj({
        "type": {"type": "string", "enum": ["Buffer", "Webhook", "Counter", "List", "Wasm", "Schedule", "Chain"]},
        "buffer": obj({"minReplicas": {"type": "integer", "min": 0}, "maxReplicas": {"type": "integer", "min": 1},
                       "bufferSize": {"type": "int-or-string"}}, ["maxReplicas"]),
    }, ["type"]),
    "sync": obj({"type": {"type": "string", "enum": ["FixedInterval"]},
                 "fixedInterval": obj({"seconds": {"type": "integer", "min": 1}}, ["seconds"])}, ["type"]),
}, ["fleetName", "policy"])})

# allocation.agones.dev/v1 GameServerAllocation (pkg/apis/allocation/v1: JSON field names).
LABEL_SELECTOR_REQ = obj({"key": S, "operator": {"type": "string", "enum": ["In", "NotIn", "Exists", "DoesNotExist"]},
                          "values": {"type": "array", "items": S}}, ["key", "operator"])
GS_SELECTOR = obj({"matchLabels": STR_MAP, "matchExpressions": {"type": "array", "items": LABEL_SELECTOR_REQ},
                   "gameServerState": {"type": "string", "enum": ["Ready", "Allocated"]},
                   "players": obj({"minAvailable": I, "maxAvailable": I})})
GAMESERVER_ALLOCATION = obj({"apiVersion": S, "kind": S, "metadata": OBJECT_META, "spec": obj({
    "selectors": {"type": "array", "items": GS_SELECTOR},
    "scheduling": {"type": "string", "enum": ["Packed", "Distributed"]},
    "metadata": obj({"labels": STR_MAP, "annotations": STR_MAP}),
})}, ["spec"])

PVC = obj({"apiVersion": S, "kind": S, "metadata": OBJECT_META, "spec": obj({
    "accessModes": {"type": "array", "items": {"type": "string", "enum": [
        "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"]}},
    "resources": obj({"requests": {"type": "map", "values": QUANTITY}}),
    "storageClassName": S})})

KINDS = {
    ("agones.dev/v1", "GameServer"): GAMESERVER,
    ("agones.dev/v1", "Fleet"): FLEET,
    ("autoscaling.agones.dev/v1", "FleetAutoscaler"): FLEET_AUTOSCALER,
    ("allocation.agones.dev/v1", "GameServerAllocation"): GAMESERVER_ALLOCATION,
    ("v1", "PersistentVolumeClaim"): PVC,
}

# ---- checking ----------------------------------------------------------------------------


def check(value, schema, where, problems):
    t = schema["type"]
    if t == "object" or t == "map":
        if not isinstance(value, dict):
            problems.append("%s: expected an object, got %r" % (where, value))
            return
        if t == "map":
            for k, v in value.items():
                if not isinstance(k, str):
                    problems.append("%s: key %r is not a string" % (where, k))
                check(v, schema["values"], "%s.%s" % (where, k), problems)
            return
        for k, v in value.items():
            if k not in schema["properties"]:
                problems.append("%s: unknown field %r (known: %s)" % (where, k, ", ".join(sorted(schema["properties"]))))
                continue
            check(v, schema["properties"][k], "%s.%s" % (where, k), problems)
        for k in schema["required"]:
            if k not in value:
                problems.append("%s: required field %r is missing" % (where, k))
        return
    if t == "array":
        if not isinstance(value, list):
            problems.append("%s: expected an array, got %r" % (where, value))
            return
        for i, v in enumerate(value):
            check(v, schema["items"], "%s[%d]" % (where, i), problems)
        return
    ok = {"string": lambda v: isinstance(v, str),
          "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
          "boolean": lambda v: isinstance(v, bool),
          "int-or-string": lambda v: isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool))}[t]
    if not ok(value):
        problems.append("%s: expected %s, got %r (%s)" % (where, t, value, type(value).__name__))
        return
    if "enum" in schema and value not in schema["enum"]:
        problems.append("%s: %r is not one of %s" % (where, value, schema["enum"]))
    if "min" in schema and value < schema["min"]:
        problems.append("%s: %r is below the minimum %r" % (where, value, schema["min"]))
    if "max" in schema and value > schema["max"]:
        problems.append("%s: %r is above the maximum %r" % (where, value, schema["max"]))
    if "pattern" in schema and not re.match(schema["pattern"], value):
        problems.append("%s: %r does not match %s" % (where, value, schema["pattern"]))
    if "maxlen" in schema and len(value) > schema["maxlen"]:
        problems.append("%s: %r is longer than %d" % (where, value, schema["maxlen"]))


def env_of(container):
    return {e["name"]: e.get("value") for e in container.get("env", [])}


def check_gameserver_spec(spec, where, server_vars, claims, problems):
    """What the GameServer spec must agree on with arbiter-server."""
    containers = spec["template"]["spec"]["containers"]
    names = [c["name"] for c in containers]
    if spec.get("container") not in names:
        problems.append("%s.container: %r is not one of the pod's containers %s" % (where, spec.get("container"), names))
        return
    c = containers[names.index(spec["container"])]
    env = env_of(c)
    for name in env:
        if name.startswith("ARBITER_") and server_vars is not None and name not in server_vars:
            problems.append("%s: env %s is not a variable arbiter-server knows" % (where, name))
    if env.get("ARBITER_AGONES") not in ("1", "true", "yes", "on"):
        problems.append("%s: ARBITER_AGONES must be on for a GameServer" % where)
    game = [p for p in spec.get("ports", []) if p.get("name") == "game"]
    if len(game) != 1 or game[0].get("protocol", "UDP") != "UDP" or game[0].get("portPolicy") not in (
            "Dynamic", "Passthrough"):
        problems.append("%s.ports: need one UDP port named game with portPolicy Dynamic or Passthrough" % where)
    elif game[0].get("portPolicy") == "Dynamic" and str(game[0].get("containerPort")) != env.get("ARBITER_PORT", "7777"):
        problems.append("%s.ports[game].containerPort %r is not the server's port %s" %
                        (where, game[0].get("containerPort"), env.get("ARBITER_PORT", "7777")))
    health = spec.get("health", {})
    period_ms = 1000 * health.get("periodSeconds", 5)
    ping_ms = int(env.get("ARBITER_AGONES_HEALTH_MS", "2000"))
    if health.get("disabled") is not True and 2 * ping_ms > period_ms:
        problems.append("%s.health.periodSeconds %ss allows fewer than two pings at ARBITER_AGONES_HEALTH_MS=%d" %
                        (where, period_ms // 1000, ping_ms))
    cap = spec.get("players", {}).get("initialCapacity")
    if cap is not None and str(cap) != env.get("ARBITER_MAX_CLIENTS", "64"):
        problems.append("%s.players.initialCapacity %r != ARBITER_MAX_CLIENTS %s" %
                        (where, cap, env.get("ARBITER_MAX_CLIENTS", "64")))
    ann = spec["template"].get("metadata", {}).get("annotations", {})
    http_port = env.get("ARBITER_HTTP_PORT", "8080")
    if ann.get("prometheus.io/scrape") != "true" or ann.get("prometheus.io/port") != http_port:
        problems.append("%s: pod annotations prometheus.io/scrape and prometheus.io/port=%s expected" %
                        (where, http_port))
    if not any(str(p.get("containerPort")) == http_port for p in c.get("ports", [])):
        problems.append("%s: the HTTP port %s (metrics) is not a container port" % (where, http_port))
    check_migrate(spec, c, env, where, problems)
    for v in spec["template"]["spec"].get("volumes", []):
        pvc = v.get("persistentVolumeClaim")
        if pvc and pvc["claimName"] not in claims:
            problems.append("%s: volume %s claims %r, which no manifest defines" % (where, v["name"], pvc["claimName"]))


# The longest a move on SIGTERM takes (docs/SCALING.md, "Draining a node"): the pod must not
# be killed before it is over.
MOVE_BOUND_S = 15


def check_migrate(spec, c, env, where, problems):
    """Moving matches: the token, the migrate port reachable in the pod, the grace period."""
    port = env.get("ARBITER_MIGRATE_PORT")
    moves = env.get("ARBITER_MIGRATE_ALLOCATOR") or env.get("ARBITER_MIGRATE_ON_DRAIN")
    if (port or moves) and not env.get("ARBITER_ADMIN_TOKEN"):
        problems.append("%s: ARBITER_MIGRATE_* needs ARBITER_ADMIN_TOKEN (the credential of a transfer)" % where)
    if port and not any(str(p.get("containerPort")) == port and p.get("protocol", "TCP") == "TCP"
                        for p in c.get("ports", [])):
        problems.append("%s: the migrate port %s/TCP is not a container port" % (where, port))
    grace = spec["template"]["spec"].get("terminationGracePeriodSeconds", 30)
    if moves and grace < 2 * MOVE_BOUND_S:
        problems.append("%s: terminationGracePeriodSeconds %d is under %d s, twice the longest move on SIGTERM" %
                        (where, grace, 2 * MOVE_BOUND_S))
    if moves and spec.get("eviction", {}).get("safe") not in ("Always", "OnUpgrade"):
        problems.append("%s: moving matches on a drain needs eviction.safe Always or OnUpgrade "
                        "(Never blocks the eviction)" % where)


def server_variables(server):
    if server is None:
        return None
    out = subprocess.run([server, "--help"], capture_output=True, text=True, timeout=30).stdout
    return set(re.findall(r"\[env (ARBITER_[A-Z_]+)\]", out))


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    files = sorted(glob.glob(os.path.join(sys.argv[1], "*.yaml")))
    if not files:
        print("validate_k8s_manifests: no *.yaml in %s" % sys.argv[1], file=sys.stderr)
        return 2
    server_vars = server_variables(sys.argv[2] if len(sys.argv) == 3 else None)
    docs = []
    for f in files:
        try:
            with open(f) as fh:
                docs += [(os.path.basename(f), i, d) for i, d in enumerate(yaml.safe_load_all(fh)) if d is not None]
        except (OSError, yaml.YAMLError) as e:
            print("validate_k8s_manifests: %s: %s" % (f, e), file=sys.stderr)
            return 2
    problems = []
    claims = {d["metadata"]["name"] for _, _, d in docs if d.get("kind") == "PersistentVolumeClaim"}
    fleets = {d["metadata"]["name"] for _, _, d in docs if d.get("kind") == "Fleet"}
    for name, i, d in docs:
        where = "%s[%d] %s" % (name, i, d.get("kind"))
        schema = KINDS.get((d.get("apiVersion"), d.get("kind")))
        if schema is None:
            problems.append("%s: unknown apiVersion/kind %s/%s" % (where, d.get("apiVersion"), d.get("kind")))
            continue
        before = len(problems)
        check(d, schema, where, problems)
        if len(problems) > before:
            continue
        kind = d["kind"]
        if kind == "GameServer":
            check_gameserver_spec(d["spec"], where + ".spec", server_vars, claims, problems)
        elif kind == "Fleet":
            check_gameserver_spec(d["spec"]["template"]["spec"], where + ".spec.template.spec", server_vars, claims,
                                  problems)
        elif kind == "FleetAutoscaler" and d["spec"]["fleetName"] not in fleets:
            problems.append("%s: fleetName %r is not a Fleet here %s" % (where, d["spec"]["fleetName"], sorted(fleets)))
        elif kind == "GameServerAllocation":
            for s in d["spec"].get("selectors", []):
                fleet = s.get("matchLabels", {}).get("agones.dev/fleet")
                if fleet is not None and fleet not in fleets:
                    problems.append("%s: selector names fleet %r, not one of %s" % (where, fleet, sorted(fleets)))
    for p in problems:
        print(p, file=sys.stderr)
    print("%d documents in %d files: %s" % (len(docs), len(files), "%d problems" % len(problems) if problems else "valid"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
