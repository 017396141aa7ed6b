"""Where python's NVIDIA wheels keep CUDA's libraries, for the GPU check.

  cuda_libs.py dirs     the folders (colon-separated) under site-packages' nvidia/ that hold
                        libcublas.so.13 (or .12), libcudnn.so.9 or libcurand.so.10
  cuda_libs.py wheels   the installed nvidia-* distributions with their versions
"""
import glob
import importlib.metadata
import os
import site
import sys

LIBS = ("libcublas.so.13", "libcublas.so.12", "libcudnn.so.9", "libcurand.so.10")


def roots():
    found = list(site.getsitepackages()) + [site.getusersitepackages()]
    try:
        import nvidia  # a namespace package: its folders are the wheels' common root

        found += [os.path.dirname(p) for p in nvidia.__path__]
    except ImportError:
        pass
    return [r for r in dict.fromkeys(found) if os.path.isdir(os.path.join(r, "nvidia"))]


def dirs():
    out = []
    for root in roots():
        for lib in LIBS:
            for pattern in ("nvidia/*/lib", "nvidia/*/*/lib"):
                for f in sorted(glob.glob(os.path.join(root, pattern, lib))):
                    d = os.path.dirname(os.path.realpath(f))
                    if d not in out:
                        out.append(d)
    return out


def wheels():
    seen = {}
    for d in importlib.metadata.distributions():
        name = d.metadata["Name"] or ""
        if name.lower().startswith("nvidia-"):
            seen[name] = d.version
    return sorted(f"{n} {v}" for n, v in seen.items())


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "dirs"
    print(":".join(dirs()) if what == "dirs" else ", ".join(wheels()))
