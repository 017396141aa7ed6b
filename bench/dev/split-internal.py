#!/usr/bin/env python3
"""Splits org.sparknet.api.internal by role and moves the averaging arithmetic out of the SPI root.

Run from the repository root on a clean work tree: `python3 bench/dev/split-internal.py`, then
`mvn -o -q spotless:apply` (it drops the imports this adds that turn out unused). Only `git mv`
and the edits the moves force: package lines, imports, fully qualified names in code and docs,
the package-info of each new package, and `public` where a member is now used from another
package. It fails, changing nothing, when api.internal holds a class the mapping does not name,
so that a class added on another branch gets a role before the split is replayed there.
"""
import os
import re
import subprocess
import sys

API = "sparknet-api/src/{}/java/org/sparknet/api"
ROLES = {
    "driver": ["BroadcastReleaser", "DataSpread", "DriverRound", "MetricsLog", "PackedData",
               "TaskFailures", "TestJob", "TrainerState", "WorkerJobs"],
    "worker": ["BlasThreads", "SolverContinuity", "TaskSeeds", "Worker", "WorkerPlan", "WorkerRegistry",
               "WorkerTasks"],
    "wire": ["BulkArrays", "FlatWeights", "LocalHandoff", "PartitionResult",
             "PartitionSolverState", "RoundOrders", "RoundSteps", "RoundTotals", "TrainerKryoClasses",
             "WeightLayout", "WorkerReport"],
    "checkpoint": ["Checkpoint", "CheckpointDir"],
    "averaging": ["AveragingStrategy"],
}
# Out of the SPI root into a public package of their own.
ROOT_MOVES = {"Averager": "org.sparknet.api.averaging", "Compression": "org.sparknet.api.averaging"}

PACKAGE_INFO = {
    "driver": """The trainer's driver side, behind {@code org.sparknet.api.train.SparkNetTrainer}: {@link
 * org.sparknet.api.internal.driver.TrainerState} (what the driver knows between rounds), {@link
 * org.sparknet.api.internal.driver.DriverRound} (one round: broadcast, job, combine), the cached
 * data ({@link org.sparknet.api.internal.driver.PackedData}), the test job, the jobs that visit
 * every worker outside a round and the metrics file.""",
    "worker": """The executor side of training: {@link org.sparknet.api.internal.worker.WorkerTasks} (what the
 * Spark tasks run), {@link org.sparknet.api.internal.worker.Worker} (one partition's net across
 * rounds), {@link org.sparknet.api.internal.worker.WorkerRegistry} (the nets of an executor) and
 * {@link org.sparknet.api.internal.worker.WorkerPlan} (what every worker of a trainer runs).""",
    "wire": """What crosses the wire between driver and executors, and how: the flat form of weights ({@link
 * org.sparknet.api.internal.wire.WeightLayout}, {@link org.sparknet.api.internal.wire.FlatWeights}),
 * a round's orders and results ({@link org.sparknet.api.internal.wire.RoundOrders}, {@link
 * org.sparknet.api.internal.wire.PartitionResult}, {@link
 * org.sparknet.api.internal.wire.RoundTotals}), the Kryo registrations and serializers, and the
 * hand-over by reference in local mode. Depends on no other internal package.""",
    "checkpoint": """A trainer's checkpoint ({@link org.sparknet.api.internal.checkpoint.Checkpoint}) and the
 * directory that keeps them on a Hadoop file system ({@link
 * org.sparknet.api.internal.checkpoint.CheckpointDir}).""",
    "averaging": """The averaging rules ({@link org.sparknet.api.internal.averaging.AveragingStrategy}): each owns its
 * worker side, its driver side and its checkpoint state; the arithmetic they share is {@link
 * org.sparknet.api.averaging.Averager}.""",
}
NOT_API = """ <strong>Not API:</strong> anything here may change without notice,
 * and no other module may use it (an architecture test checks)."""

# Members now used from another package.
PUBLIC = [
    (
        "sparknet-api/src/main/java/org/sparknet/api/internal/wire/LocalHandoff.java",
        "  static String key(String trainerId, int round) {",
        "  public static String key(String trainerId, int round) {",
    ),
    (
        "sparknet-api/src/main/java/org/sparknet/api/internal/wire/LocalHandoff.java",
        "  static void putCentre(String key, float[] centre) {",
        "  public static void putCentre(String key, float[] centre) {",
    ),
    (
        "sparknet-api/src/main/java/org/sparknet/api/internal/wire/LocalHandoff.java",
        "  static PartitionResult put(String key, PartitionResult result) {",
        "  public static PartitionResult put(String key, PartitionResult result) {",
    ),
    (
        "sparknet-api/src/main/java/org/sparknet/api/internal/wire/LocalHandoff.java",
        "  static PartitionResult take(String key, PartitionResult sent) {",
        "  public static PartitionResult take(String key, PartitionResult sent) {",
    ),
    (
        "sparknet-api/src/main/java/org/sparknet/api/internal/wire/LocalHandoff.java",
        "  static void clear(String key) {",
        "  public static void clear(String key) {",
    ),
    (
        "sparknet-api/src/test/java/org/sparknet/api/internal/averaging/AveragingStrategyTest.java",
        "class AveragingStrategyTest {",
        "public class AveragingStrategyTest {",
    ),
    (
        "sparknet-api/src/test/java/org/sparknet/api/internal/averaging/AveragingStrategyTest.java",
        "  static AveragingStrategy rule(",
        "  public static AveragingStrategy rule(",
    ),
    (
        "sparknet-api/src/main/java/org/sparknet/api/averaging/Averager.java",
        "  static final long PARALLEL_THRESHOLD = 1L << 21;",
        "  public static final long PARALLEL_THRESHOLD = 1L << 21;",
    ),
]


def run(*cmd):
    subprocess.run(cmd, check=True)


def tracked(*patterns):
    out = subprocess.run(["git", "ls-files", *patterns], check=True, capture_output=True, text=True)
    return [f for f in out.stdout.splitlines() if os.path.exists(f)]


def package_of(text):
    m = re.search(r"^package ([\w.]+);", text, re.M)
    return m.group(1) if m else None


def main():
    internal = API.format("main") + "/internal"
    role_of = {c: r for r, cs in ROLES.items() for c in cs}
    present = sorted(f[:-5] for f in os.listdir(internal) if f.endswith(".java"))
    unknown = [c for c in present if c != "package-info" and c not in role_of]
    missing = [c for c in role_of if c not in present]
    if unknown or missing:
        sys.exit(f"api.internal does not match the mapping: unmapped {unknown}, absent {missing}")

    new_pkg = {("org.sparknet.api.internal", c): f"org.sparknet.api.internal.{r}"
               for c, r in role_of.items()}
    for c, p in ROOT_MOVES.items():
        new_pkg[("org.sparknet.api", c)] = p

    # Each main class and its tests (XTest, XIT, X*Test) move together.
    moves = []
    for kind in ("main", "test"):
        base = API.format(kind)
        for (old, c), new in new_pkg.items():
            d = base + "/" + old[len("org.sparknet.api"):].replace(".", "/").lstrip("/")
            d = d.rstrip("/")
            if not os.path.isdir(d):
                continue
            for f in sorted(os.listdir(d)):
                name = f[:-5]
                if f.endswith(".java") and (name == c or re.fullmatch(c + r"\w*(Test|IT)", name)):
                    if kind == "test" and name != c and any(
                        name.startswith(o) and len(o) > len(c) for (_, o) in new_pkg):
                        continue  # CheckpointDirTest belongs to CheckpointDir, not Checkpoint
                    moves.append((d + "/" + f, base + "/" + new[len("org.sparknet.api."):]
                                  .replace(".", "/") + "/" + f, old, new))
    leftover_tests = [f for f in os.listdir(API.format("test") + "/internal")
                      if f.endswith(".java") and API.format("test") + "/internal/" + f
                      not in [m[0] for m in moves]] if os.path.isdir(
        API.format("test") + "/internal") else []
    if leftover_tests:
        sys.exit(f"tests in api.internal without a class of the mapping: {leftover_tests}")

    # Before: every Java file's package, to know what it saw without an import (a test also sees
    # the tests of its package).
    java = tracked("*.java")
    old_pkg_of = {f: package_of(open(f).read()) for f in java}
    visible = {}
    for f, p in old_pkg_of.items():
        if p:
            kind = "test" if "/src/test/" in f else "main"
            visible.setdefault((p, kind), set()).add(os.path.basename(f)[:-5])
    moved_to = {(m[2], os.path.basename(m[0])[:-5]): m[3] for m in moves}

    for src, dst, _, _ in moves:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        run("git", "mv", src, dst)
    info = internal + "/package-info.java"
    run("git", "mv", info, internal + "/driver/package-info.java")
    dest = {m[0]: m[1] for m in moves}
    dest[info] = internal + "/driver/package-info.java"
    new_of_file = {dest.get(f, f): (old_pkg_of[f], next((m[3] for m in moves if m[0] == f),
                                                        old_pkg_of[f])) for f in java}

    fqn = sorted(((o + "." + c, n + "." + c) for (o, c), n in new_pkg.items()),
                 key=lambda x: -len(x[0]))
    for f, (old_p, new_p) in new_of_file.items():
        text = open(f).read()
        orig = text
        if old_p != new_p:
            text = re.sub(r"^package [\w.]+;", f"package {new_p};", text, count=1, flags=re.M)
        for o, n in fqn:
            text = re.sub(re.escape(o) + r"\b", n, text)
        # What the file saw in its old package without an import and now lives elsewhere.
        needed = []
        code = re.sub(r"^(package|import) .*$", "", text, flags=re.M)
        seen = set(visible.get((old_p, "main"), ()))
        if "/src/test/" in f:
            seen |= visible.get((old_p, "test"), set())
        for c in sorted(seen):
            target = moved_to.get((old_p, c), old_p)
            if target != new_p and re.search(r"\b" + c + r"\b", code):
                needed.append(target + "." + c)
        if needed:
            block = "".join(f"import {n};\n" for n in needed
                            if not re.search(r"^import " + re.escape(n) + ";", text, re.M))
            text = re.sub(r"^(package [\w.]+;\n)", r"\1\n" + block.replace("\\", "\\\\"), text,
                          count=1, flags=re.M)
        # Imports of the file's own package are redundant.
        text = re.sub(r"^import " + re.escape(new_p) + r"\.[A-Z]\w*;\n", "", text, flags=re.M)
        if text != orig:
            open(f, "w").write(text)

    for doc in tracked("*.md"):
        text = open(doc).read()
        orig = text
        for o, n in fqn:
            text = re.sub(re.escape(o) + r"\b", n, text)
        if text != orig:
            open(doc, "w").write(text)

    for role, body in PACKAGE_INFO.items():
        path = internal + "/" + role + "/package-info.java"
        with open(path, "w") as out:
            out.write("/**\n * " + body + NOT_API + "\n */\npackage org.sparknet.api.internal."
                      + role + ";\n")
        run("git", "add", path)
    public = API.format("main") + "/averaging/package-info.java"
    with open(public, "w") as out:
        out.write("/**\n * The arithmetic of averaging weights ({@link org.sparknet.api.averaging.Averager}) and the"
                  "\n * 16-bit formats workers may send their offsets in ({@link"
                  "\n * org.sparknet.api.averaging.Compression}): public, used by the trainer, the"
                  "\n * {@code SolverGroup} of the SPI and benchmarks alike.\n */\n"
                  "package org.sparknet.api.averaging;\n")
    run("git", "add", public)

    for path, old, new in PUBLIC:
        text = open(path).read()
        if text.count(old) != 1:
            sys.exit(f"{path}: expected '{old}' once")
        open(path, "w").write(text.replace(old, new))


if __name__ == "__main__":
    main()
