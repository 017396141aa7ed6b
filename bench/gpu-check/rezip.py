"""Re-zips the unpacked jars of the GPU check's payload: rezip.py JARS_DIR LIB_DIR.

Each folder JARS_DIR/NAME.jar (a jar's entries, unpacked where the parts were built) becomes
LIB_DIR/NAME.jar, stored without compression. Every folder gets an entry of its own: code looks
some up as resources (the GPU natives' folder, for one), which a jar answers only for entries it
holds. The manifest goes first, as JarInputStream expects. A jar already there is kept.
"""
import concurrent.futures
import os
import sys
import zipfile


def entries(src):
    out = []
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        rel = os.path.relpath(dirpath, src)
        if rel != ".":
            out.append(rel.replace(os.sep, "/") + "/")
        out += [os.path.join(rel, f).replace(os.sep, "/").removeprefix("./") for f in sorted(filenames)]
    first = [e for e in ("META-INF/", "META-INF/MANIFEST.MF") if e in out]
    return first + [e for e in out if e not in first]


def rezip(src, dst):
    tmp = dst + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED, allowZip64=True, strict_timestamps=False) as z:
        for name in entries(src):
            path = os.path.join(src, name)
            info = zipfile.ZipInfo.from_file(path, name, strict_timestamps=False)
            if name.endswith("/"):
                z.writestr(info, b"")
            else:
                with open(path, "rb") as f:
                    z.writestr(info, f.read())
    os.replace(tmp, dst)
    return os.path.basename(dst)


def main(jars, lib):
    os.makedirs(lib, exist_ok=True)
    todo = [n for n in sorted(os.listdir(jars)) if not os.path.exists(os.path.join(lib, n))]
    # The largest first, so that the pool is not left waiting for one big jar at the end.
    todo.sort(key=lambda n: -sum(os.path.getsize(os.path.join(d, f))
                                 for d, _, fs in os.walk(os.path.join(jars, n)) for f in fs))
    with concurrent.futures.ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
        for _ in pool.map(rezip, [os.path.join(jars, n) for n in todo], [os.path.join(lib, n) for n in todo]):
            pass


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
