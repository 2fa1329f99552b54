#!/usr/bin/python3
"""Lint docker/compose.yaml without a Docker engine (run by scripts/test-docker.sh).

Checks that the file parses as YAML, has the shape Compose expects, and names only things
that exist: the build context and Dockerfile, named volumes, services it depends on or
connects to, and -- given the built image (--root, --config) -- the programs it runs, the
ports the image exposes, its volume path, and ARBITER_* variables arbiter-server knows.

Usage: lint-compose.py COMPOSE [--root IMAGE_ROOT] [--config IMAGE_INSPECT_JSON]
                               [--server-help FILE]
       lint-compose.py COMPOSE --argv SERVICE | --env SERVICE
The second form prints what a service would run, for scripts/test-docker.sh to run it:
its entrypoint + command (one argument per line; empty entrypoint = the image's), or its
environment (NAME=VALUE lines), with ${VAR:-default} interpolated as Compose does.
Exit: 0 clean, 1 problems (one line each on stderr), 2 bad usage or unreadable file.
"""
import argparse
import json
import os
import re
import sys

try:
    import yaml
except ImportError:  # Debian: python3-yaml (scripts/install-deps.sh --docker)
    print("lint-compose: python3-yaml is not installed", file=sys.stderr)
    sys.exit(2)

TOP_KEYS = {"name", "services", "volumes", "networks", "configs", "secrets", "include"}
SERVICE_KEYS = {
    "image", "build", "entrypoint", "command", "environment", "env_file", "ports", "expose",
    "volumes", "healthcheck", "restart", "stop_signal", "stop_grace_period", "depends_on",
    "profiles", "networks", "user", "working_dir", "init", "read_only", "tmpfs", "cap_drop",
    "cap_add", "security_opt", "labels", "logging", "deploy", "pull_policy", "ulimits",
    "container_name", "hostname",
}
VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}")


def interpolate(value):
    """Compose-style ${VAR:-default}: the default, as a run without the variable gets."""
    if isinstance(value, str):
        return VAR.sub(lambda m: os.environ.get(m.group(1), m.group(2) or ""), value)
    if isinstance(value, list):
        return [interpolate(v) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v) for k, v in value.items()}
    return value


def as_list(v):
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("compose")
    ap.add_argument("--root", help="root directory of the built image (podman mount)")
    ap.add_argument("--config", help="`podman image inspect` JSON of the built image")
    ap.add_argument("--server-help", help="file holding `arbiter-server --help` output")
    ap.add_argument("--argv", metavar="SERVICE", help="print the service's entrypoint and command")
    ap.add_argument("--env", metavar="SERVICE", help="print the service's environment")
    args = ap.parse_args()

    problems = []

    def bad(where, what):
        problems.append(f"{args.compose}: {where}: {what}")

    try:
        with open(args.compose, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        print(f"lint-compose: {args.compose}: {e}", file=sys.stderr)
        return 2
    if not isinstance(doc, dict):
        print(f"lint-compose: {args.compose}: top level is not a mapping", file=sys.stderr)
        return 2
    doc = interpolate(doc)
    base = os.path.dirname(os.path.abspath(args.compose))
    if args.argv or args.env:
        svc = (doc.get("services") or {}).get(args.argv or args.env)
        if not isinstance(svc, dict):
            print(f"lint-compose: {args.compose}: no service '{args.argv or args.env}'", file=sys.stderr)
            return 2
        if args.argv:
            for a in as_list(svc.get("entrypoint")) + as_list(svc.get("command")):
                print(a)
        else:
            env = svc.get("environment") or {}
            items = env.items() if isinstance(env, dict) else [str(e).split("=", 1) for e in env]
            for k, v in items:
                print(f"{k}={'' if v is None else v}")
        return 0

    cfg = {}
    if args.config:
        with open(args.config, encoding="utf-8") as f:
            inspected = json.load(f)
        cfg = (inspected[0] if isinstance(inspected, list) else inspected).get("Config", {})
    env_path = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
    for e in cfg.get("Env") or []:
        if e.startswith("PATH="):
            env_path = e[5:].split(":")
    server_help = None
    if args.server_help:
        with open(args.server_help, encoding="utf-8", errors="replace") as f:
            server_help = f.read()

    def program_exists(name):
        if not args.root:
            return True
        if "/" in name:
            return os.access(os.path.join(args.root, name.lstrip("/")), os.X_OK)
        return any(os.access(os.path.join(args.root, d.lstrip("/"), name), os.X_OK) for d in env_path)

    for k in doc:
        if k not in TOP_KEYS and not str(k).startswith("x-"):
            bad("top level", f"unknown key '{k}'")
    services = doc.get("services")
    if not isinstance(services, dict) or not services:
        bad("services", "missing or empty")
        services = {}
    declared_volumes = set((doc.get("volumes") or {}).keys())
    images_built = {}

    for name, svc in services.items():
        where = f"services.{name}"
        if not isinstance(svc, dict):
            bad(where, "not a mapping")
            continue
        for k in svc:
            if k not in SERVICE_KEYS and not str(k).startswith("x-"):
                bad(where, f"unknown key '{k}'")
        build = svc.get("build")
        if build is not None:
            if isinstance(build, str):
                build = {"context": build}
            ctx = os.path.normpath(os.path.join(base, build.get("context", ".")))
            if not os.path.isdir(ctx):
                bad(where, f"build.context '{build.get('context')}' is not a directory ({ctx})")
            dockerfile = os.path.join(ctx, build.get("dockerfile", "Dockerfile"))
            if not os.path.isfile(dockerfile):
                bad(where, f"build.dockerfile '{build.get('dockerfile')}' does not exist ({dockerfile})")
            if "image" in svc:
                images_built[svc["image"]] = name
        elif "image" not in svc:
            bad(where, "has neither image nor build")
    for name, svc in services.items():
        if not isinstance(svc, dict):
            continue
        where = f"services.{name}"
        image = svc.get("image")
        if image and image not in images_built:
            bad(where, f"image '{image}' is built by no service here and would be pulled")
        # What the container runs: entrypoint (or the image's), then the healthcheck.
        entry = as_list(svc.get("entrypoint")) or as_list(cfg.get("Entrypoint"))
        if entry and not program_exists(entry[0]):
            bad(where, f"entrypoint '{entry[0]}' is not in the image")
        hc = svc.get("healthcheck")
        if hc is not None:
            test = as_list(hc.get("test"))
            if not test or test[0] not in ("CMD", "CMD-SHELL", "NONE"):
                bad(where, "healthcheck.test must start with CMD, CMD-SHELL or NONE")
            elif test[0] == "CMD" and (len(test) < 2 or not program_exists(test[1])):
                bad(where, f"healthcheck program '{test[1] if len(test) > 1 else ''}' is not in the image")
        exposed = set((cfg.get("ExposedPorts") or {}).keys())
        for p in as_list(svc.get("ports")):
            m = re.fullmatch(r"(?:[\d.]+:)?(?:\d+:)?(\d+)(?:/(tcp|udp))?", str(p))
            if not m:
                bad(where, f"port '{p}' is not HOST:CONTAINER[/proto]")
            elif cfg and f"{m.group(1)}/{m.group(2) or 'tcp'}" not in exposed:
                bad(where, f"port '{p}': the image exposes only {sorted(exposed)}")
        image_volumes = set((cfg.get("Volumes") or {}).keys())
        for v in as_list(svc.get("volumes")):
            parts = str(v).split(":")
            if len(parts) < 2:
                bad(where, f"volume '{v}' has no target")
                continue
            src, dst = parts[0], parts[1]
            if src.startswith((".", "/")):
                if not os.path.exists(os.path.normpath(os.path.join(base, src))):
                    bad(where, f"bind source '{src}' does not exist")
            elif src not in declared_volumes:
                bad(where, f"named volume '{src}' is not declared under top-level volumes")
            if cfg and dst not in image_volumes:
                bad(where, f"volume target '{dst}' is not a VOLUME of the image {sorted(image_volumes)}")
        for dep in as_list(list((svc.get("depends_on") or {}))):
            if dep not in services:
                bad(where, f"depends_on '{dep}' is no service")
        cmd = [str(c) for c in as_list(svc.get("command"))]
        for i, c in enumerate(cmd[:-1]):
            if c == "--host" and cmd[i + 1] not in services:
                bad(where, f"--host '{cmd[i + 1]}' is no service")
        env = svc.get("environment") or {}
        names = env.keys() if isinstance(env, dict) else [str(e).split("=", 1)[0] for e in env]
        for n in names:
            if server_help is not None and n.startswith("ARBITER_") and n not in server_help:
                bad(where, f"environment '{n}' is not documented by arbiter-server --help")
        if "stop_grace_period" in svc and not re.fullmatch(r"\d+(ms|s|m)", str(svc["stop_grace_period"])):
            bad(where, f"stop_grace_period '{svc['stop_grace_period']}' is not a duration")
        if svc.get("restart") not in (None, "no", "always", "on-failure", "unless-stopped"):
            bad(where, f"restart '{svc.get('restart')}' is not a restart policy")

    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print(f"lint-compose: {args.compose}: {len(services)} services "
          f"({', '.join(services)}), no problems"
          + ("" if args.root else " (image not checked: no --root)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
