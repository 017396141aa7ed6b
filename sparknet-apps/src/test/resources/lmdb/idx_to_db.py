"""Writes an IDX image file and its labels (plain or .gz) as a Caffe database of Datum records, as
Caffe's convert_mnist_data does (keys %08d, channels 1, the raw bytes, the label), with Debian's
python3-lmdb or python3-plyvel; the Datum is encoded by write_lmdbs.datum, by hand.

usage: idx_to_db.py lmdb|leveldb IMAGES LABELS OUT [VARIANT]
VARIANT: 'png' stores each image PNG-encoded (convert_imageset --encoded); 'odd-size' makes the
last record 1x28x27; 'undecodable' makes the last record encoded=true with bytes that are no image.
"""
import gzip
import io
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from write_lmdbs import datum  # noqa: E402


def idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic, count = struct.unpack(">II", data[:8])
    dims = [struct.unpack(">I", data[8 + 4 * i:12 + 4 * i])[0] for i in range((magic & 0xFF) - 1)]
    start = 8 + 4 * len(dims)
    size = 1
    for d in dims:
        size *= d
    return [data[start + i * size:start + (i + 1) * size] for i in range(count)], dims


def records(images, dims, labels, variant):
    h, w = dims
    out = []
    for i, (img, label) in enumerate(zip(images, labels)):
        last = i == len(images) - 1
        if variant == "png":
            from PIL import Image
            buf = io.BytesIO()
            Image.frombytes("L", (w, h), img).save(buf, format="PNG")
            value = datum(data=buf.getvalue(), label=label, encoded=True)
        elif variant == "odd-size" and last:
            value = datum(1, h, w - 1, img[:h * (w - 1)], label)
        elif variant == "undecodable" and last:
            value = datum(data=b"not an image at all", label=label, encoded=True)
        else:
            value = datum(1, h, w, img, label)
        out.append((b"%08d" % i, value))
    return out


def main():
    backend, images_path, labels_path, out = sys.argv[1:5]
    variant = sys.argv[5] if len(sys.argv) > 5 else ""
    images, dims = idx(images_path)
    labels = [l[0] for l in idx(labels_path)[0]]
    recs = records(images, dims, labels, variant)
    if backend == "lmdb":
        import lmdb
        env = lmdb.open(out, map_size=1 << 30, subdir=True)
        with env.begin(write=True) as txn:
            for k, v in recs:
                txn.put(k, v)
        env.close()
    else:
        import plyvel
        db = plyvel.DB(out, create_if_missing=True, error_if_exists=True)
        with db.write_batch() as wb:
            for k, v in recs:
                wb.put(k, v)
        db.close()
    print(len(recs))


if __name__ == "__main__":
    main()
