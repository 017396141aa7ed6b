"""Writes HDF5 files as Caffe's HDF5Data layer reads them, with h5py (Debian's python3-h5py).

Run with /usr/bin/python3. Usage: write_hdf5.py IMAGES_IDX LABELS_IDX OUT_DIR

From the first 500 Fashion-MNIST training images and labels (IDX files, gzipped or not):
  part0.h5  rows 0..299: data float32 N x 1 x 28 x 28 = pixel / 255, label float32 N
  part1.h5  rows 300..499: data float64 N x 1 x 28 x 28 = pixel / 255.0, label float64 N x 1
and files that Caffe would refuse (or crash on):
  nodata.h5    datasets 'images' and 'label' and a group 'extra', no 'data'
  mismatch.h5  data 5 x 1 x 28 x 28, label 4
  strings.h5   data: 3 strings
  shape.h5     data float32 7 x 2 x 3 (another row shape), label 7
  ints.h5      data uint8 6 x 1 x 28 x 28 (the raw pixels), label int32 6
"""
import gzip
import os
import sys

import h5py
import numpy as np


def idx(path):
    with (gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")) as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def main(images_gz, labels_gz, out):
    images = idx(images_gz)[:500].reshape(500, 1, 28, 28)
    labels = idx(labels_gz)[:500]
    os.makedirs(out, exist_ok=True)
    with h5py.File(os.path.join(out, "part0.h5"), "w") as f:
        f["data"] = images[:300].astype(np.float32) / np.float32(255)
        f["label"] = labels[:300].astype(np.float32)
    with h5py.File(os.path.join(out, "part1.h5"), "w") as f:
        f["data"] = images[300:].astype(np.float64) / 255.0
        f["label"] = labels[300:].astype(np.float64).reshape(200, 1)
    with h5py.File(os.path.join(out, "nodata.h5"), "w") as f:
        f["images"] = images[:3].astype(np.float32)
        f["label"] = labels[:3].astype(np.float32)
        f.create_group("extra")
    with h5py.File(os.path.join(out, "mismatch.h5"), "w") as f:
        f["data"] = images[:5].astype(np.float32)
        f["label"] = labels[:4].astype(np.float32)
    with h5py.File(os.path.join(out, "strings.h5"), "w") as f:
        f["data"] = np.array([b"a", b"b", b"c"], dtype="S1")
        f["label"] = np.zeros(3, dtype=np.float32)
    with h5py.File(os.path.join(out, "shape.h5"), "w") as f:
        f["data"] = np.zeros((7, 2, 3), dtype=np.float32)
        f["label"] = np.zeros(7, dtype=np.float32)
    with h5py.File(os.path.join(out, "ints.h5"), "w") as f:
        f["data"] = images[:6]
        f["label"] = labels[:6].astype(np.int32)


if __name__ == "__main__":
    main(*sys.argv[1:4])
