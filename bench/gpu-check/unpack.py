"""unpack.py PART DIR [--if-new]: unpacks one part of the GPU check into DIR/payload, streaming (one
pass over the xz data; python's lzma, so no xz binary is needed).

Each part begins with its marker parts/partN ("part N of M" and the pack's VERSION line). When the
payload already holds parts of another pack, it is removed first, so that two packs never mix, and
so are the jars re-zipped from it (DIR/lib). With --if-new, a part whose marker is already there,
from the same pack, is not unpacked again (prints nothing; exit 0).
"""
import os
import shutil
import sys
import tarfile


def versions(parts_dir):
    out = set()
    if os.path.isdir(parts_dir):
        for name in os.listdir(parts_dir):
            with open(os.path.join(parts_dir, name)) as f:
                out.add(f.read().splitlines()[1])
    return out


def main(part, base, if_new=False):
    payload = os.path.join(base, "payload")
    os.makedirs(payload, exist_ok=True)
    extract = {"filter": "tar"} if hasattr(tarfile, "data_filter") else {}
    with tarfile.open(part, "r|xz") as t:
        first = True
        for member in t:
            if first:
                first = False
                if not member.name.startswith("parts/part"):
                    sys.exit(f"{part} does not begin with its parts/partN marker: not a gpu-check part")
                text = t.extractfile(member).read()
                version = text.decode().splitlines()[1]
                marker = os.path.join(payload, member.name)
                if if_new and os.path.exists(marker) and versions(os.path.dirname(marker)) == {version}:
                    return False
                if versions(os.path.join(payload, "parts")) - {version}:
                    print(f"gpu-check: {payload} holds another pack: removed", flush=True)
                    shutil.rmtree(payload)
                    shutil.rmtree(os.path.join(base, "lib"), ignore_errors=True)
                    os.makedirs(payload)
                # Written after the rest (a stream cannot go back to extract it): a marker in the
                # payload then means that its whole part is there.
                continue
            t.extract(member, payload, **extract)
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    with open(marker, "wb") as f:
        f.write(text)
    return True


if __name__ == "__main__":
    done = main(sys.argv[1], sys.argv[2], "--if-new" in sys.argv[3:])
    sys.exit(0 if done else 3)
