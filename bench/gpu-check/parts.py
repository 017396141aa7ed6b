"""parts.py PAYLOAD OUT_DIR LIMIT_MIB: splits the GPU check's payload into as few solid tar.xz parts
of at most LIMIT_MIB MiB as it can, OUT_DIR/part1.tar.xz, part2, ...

Each part is one tar archive compressed as one xz stream (xz -9, solid), and unpacks on its own into
the same tree; each holds parts/partN ("part N of M" and the payload's VERSION line), by which the
run sees that all have arrived. The units it distributes are the payload's top-level entries, each
jar's folder and each data set; a unit too large for one part is split into its entries. A unit's
size is estimated by compressing it alone with xz -6, an upper bound of its share of a solid -9
archive (estimates are kept in OUT_DIR/cache/estimates.json, keyed by the unit's files, sizes and
times); units go to parts first-fit, largest first, and every part's real size is checked.
"""
import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import tempfile

MIB = 1 << 20


def tree_size(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def signature(payload, unit):
    h = hashlib.sha256()
    for rel in unit:
        path = os.path.join(payload, rel)
        walk = [(path, [], [])] if os.path.isfile(path) else os.walk(path)
        for d, dirs, files in walk:
            dirs.sort()
            h.update(os.path.relpath(d, payload).encode())
            for f in sorted(files):
                st = os.stat(os.path.join(d, f))
                h.update(f"{f}:{st.st_size}:{int(st.st_mtime)}".encode())
    return h.hexdigest()


def tar_xz(payload, paths, level, out, extra=None):
    """tar of `extra` (folder, path), first, then of `paths` (relative to payload), compressed by
    xz -`level` into `out`; returns its size."""
    cmd = ["tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner", "-cf", "-"]
    if extra:
        cmd += ["-C", extra[0], extra[1]]
    cmd += ["-C", payload] + paths
    with open(out, "wb") as f:
        tar = subprocess.Popen(cmd, stdout=subprocess.PIPE)
        xz = subprocess.run(["xz", f"-{level}", "-T0", "-c"], stdin=tar.stdout, stdout=f, check=True)
        tar.stdout.close()
        if tar.wait() != 0 or xz.returncode != 0:
            sys.exit(f"tar | xz failed for {paths}")
    return os.path.getsize(out)


def units(payload):
    """Top-level entries, each jar's folder and each data set as its own unit; the rest together."""
    out, rest = [], []
    for name in sorted(os.listdir(payload)):
        if name in ("jars", "data"):
            out += [[f"{name}/{n}"] for n in sorted(os.listdir(os.path.join(payload, name)))]
        elif name == "parts":
            continue
        elif tree_size(os.path.join(payload, name)) > 4 * MIB:
            out.append([name])
        else:
            rest.append(name)
    return out + ([rest] if rest else [])


def estimate(payload, unit, cache):
    key = signature(payload, unit)
    if key not in cache:
        with tempfile.NamedTemporaryFile(suffix=".tar.xz") as tmp:
            cache[key] = tar_xz(payload, unit, 6, tmp.name)
    return cache[key]


def split_large(payload, sized, limit, cache):
    """Units estimated over the limit are replaced by their entries, recursively."""
    out = []
    for unit, size in sized:
        if size <= limit:
            out.append((unit, size))
            continue
        if len(unit) != 1 or not os.path.isdir(os.path.join(payload, unit[0])):
            sys.exit(f"{unit} alone is {size / MIB:.1f} MiB compressed, over the {limit / MIB:.0f} MiB limit")
        children = [[f"{unit[0]}/{n}"] for n in sorted(os.listdir(os.path.join(payload, unit[0])))]
        out += split_large(payload, [(c, estimate(payload, c, cache)) for c in children], limit, cache)
    return out


def first_fit(sized, capacity):
    bins = []
    for unit, size in sorted(sized, key=lambda us: -us[1]):
        for b in bins:
            if b[0] + size <= capacity:
                b[0] += size
                b[1] += unit
                break
        else:
            bins.append([size, list(unit)])
    return bins


def describe(paths):
    jars = sorted(p[len("jars/"):] for p in paths if p.startswith("jars/"))
    named = [j for j in jars if j.startswith("sparknet-") or "junit" in j]
    others = [p for p in paths if not p.startswith("jars/")]
    text = ", ".join(sorted(others) + named)
    rest = len(jars) - len(named)
    return text + (f"{', ' if text else ''}{rest} Spark jars" if rest else "")


def main(payload, out_dir, limit_mib):
    limit = int(float(limit_mib) * MIB)
    cache_file = os.path.join(out_dir, "cache", "estimates.json")
    os.makedirs(os.path.dirname(cache_file), exist_ok=True)
    cache = json.load(open(cache_file)) if os.path.exists(cache_file) else {}
    us = units(payload)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        sizes = list(pool.map(lambda u: estimate(payload, u, cache), us))
    sized = split_large(payload, list(zip(us, sizes)), limit, cache)
    json.dump(cache, open(cache_file, "w"))
    # A small margin: tar's headers, and a unit's share of a solid archive may exceed its -6 size.
    bins = first_fit(sized, int(limit * 0.98))
    version = open(os.path.join(payload, "VERSION")).readline().strip()
    total_raw = tree_size(payload)
    print(f"gpu-check: payload {total_raw / MIB:.0f} MiB in {len(sized)} units; estimated "
          f"{sum(s for _, s in sized) / MIB:.1f} MiB compressed; {len(bins)} parts")
    with tempfile.TemporaryDirectory() as markers:
        os.makedirs(os.path.join(markers, "parts"))
        for i, (est, paths) in enumerate(bins, 1):
            marker = f"parts/part{i}"
            with open(os.path.join(markers, marker), "w") as f:
                f.write(f"part {i} of {len(bins)}\n{version}\n")
            out = os.path.join(out_dir, f"part{i}.tar.xz")
            size = tar_xz(payload, sorted(paths), 9, out, (markers, marker))
            raw = sum(tree_size(os.path.join(payload, p)) for p in paths)
            print(f"gpu-check: {out}: {size / MIB:.2f} MiB ({size:,} bytes; {raw / MIB:.0f} MiB "
                  f"unpacked; estimated {est / MIB:.1f}): {describe(paths)}")
            if size > limit:
                sys.exit(f"{out} is {size:,} bytes, over {limit:,}: lower the packing margin")


if __name__ == "__main__":
    main(*sys.argv[1:4])
