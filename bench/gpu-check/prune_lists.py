"""prune_lists.py CLASSLOAD_DIR SPARK_JARS_DIR JVM_FLAGS SPARK_LIST MODULE_LIST

Reads the -Xlog:class+load files of a prune run and writes the Spark jars that any class came from
(one file name a line; with the native libraries of Netty's transports in use) and the JDK modules that any class came from, with the modules that the JVM
flags open (--add-opens=MODULE/...), which the JVM warns about when they are absent.
"""
import os
import re
import sys

SOURCE = re.compile(r" source: (\S+)")


def native_companions(jars, available):
    """Netty's native transports: the classes come from netty-transport-classes-T, the library from
    netty-transport-native-T-...-linux-x86_64 as a resource, which no class-loading log shows; without
    it Netty falls back to NIO, and the check would not run what a user runs."""
    out = set()
    for jar in jars:
        m = re.match(r"netty-transport-classes-(\w+)-(.+)\.jar$", jar)
        if m:
            native = f"netty-transport-native-{m.group(1)}-{m.group(2)}-linux-x86_64.jar"
            if native in available:
                out.add(native)
    return out


def main(logs, spark_dir, flags_file, spark_out, modules_out):
    jars, modules = set(), set()
    spark_dir = os.path.realpath(spark_dir)
    for name in os.listdir(logs):
        with open(os.path.join(logs, name), errors="replace") as f:
            for line in f:
                m = SOURCE.search(line)
                if not m:
                    continue
                src = m.group(1)
                if src.startswith("jrt:/"):
                    modules.add(src[len("jrt:/"):].split("/")[0])
                    continue
                path = re.sub(r"^(jar:)?file:", "", src).split("!")[0]
                if os.path.dirname(os.path.realpath(path)) == spark_dir:
                    jars.add(os.path.basename(path))
    jars |= native_companions(jars, os.listdir(spark_dir))
    if "java.base" not in modules:
        sys.exit("no class came from java.base: were the logs written with -Xshare:off?")
    with open(flags_file) as f:
        modules |= set(re.findall(r"--add-opens=([\w.]+)/", f.read()))
    with open(spark_out, "w") as f:
        f.write("".join(j + "\n" for j in sorted(jars)))
    with open(modules_out, "w") as f:
        f.write("".join(m + "\n" for m in sorted(modules)))
    total = len([n for n in os.listdir(spark_dir) if n.endswith(".jar")])
    print(f"gpu-check: {len(jars)} of {total} Spark jars kept; {len(modules)} JDK modules")


if __name__ == "__main__":
    main(*sys.argv[1:6])
