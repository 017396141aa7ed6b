#!/usr/bin/python3
"""Writes an MNIST-style IDX pair (images, labels; .gz or plain) as a Caffe LMDB, as Caffe's
convert_mnist_data does: keys %08d, values Caffe Datum messages (channels 1, height, width, raw
uint8 data, label). The Datum is encoded by hand in protobuf's wire format so that the LMDB comes
from a tool independent of both Caffe and SparkNet (Debian's python3-lmdb).

    /usr/bin/python3 idx_to_lmdb.py IMAGES.gz LABELS.gz OUT_DIR [LIMIT]
"""
import gzip
import os
import struct
import sys

import lmdb


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def datum(channels, height, width, data, label):
    # Datum fields: channels = 1, height = 2, width = 3 (varint), data = 4 (bytes), label = 5.
    return (b"\x08" + varint(channels) + b"\x10" + varint(height) + b"\x18" + varint(width)
            + b"\x22" + varint(len(data)) + data + b"\x28" + varint(label))


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    magic = struct.unpack(">I", raw[:4])[0]
    dims = magic & 0xFF
    shape = struct.unpack(">" + "I" * dims, raw[4:4 + 4 * dims])
    return shape, raw[4 + 4 * dims:]


def read_pair(argv, usage):
    """The command line IMAGES LABELS OUT_DIR [LIMIT] read: (count, height, width, pixels, labels),
    count cut to LIMIT; exits with usage on a wrong argument count, and names both files when
    their counts differ."""
    if len(argv) not in (4, 5):
        sys.exit(usage)
    (count, height, width), pixels = read_idx(argv[1])
    (label_count,), labels = read_idx(argv[2])
    if label_count != count:
        sys.exit("%s has %d images but %s has %d labels" % (argv[1], count, argv[2], label_count))
    if len(argv) == 5:
        count = min(count, int(argv[4]))
    return count, height, width, pixels, labels


def main(argv):
    count, height, width, pixels, labels = read_pair(argv, __doc__)
    size = height * width
    os.makedirs(argv[3], exist_ok=True)
    env = lmdb.open(argv[3], map_size=max(1 << 26, count * (size + 64) * 2), subdir=True)
    batch = 1000
    for start in range(0, count, batch):
        with env.begin(write=True) as txn:
            for i in range(start, min(count, start + batch)):
                value = datum(1, height, width, pixels[i * size:(i + 1) * size], labels[i])
                txn.put(b"%08d" % i, value)
    env.close()
    print("%s: %d records of 1x%dx%d" % (argv[3], count, height, width))


if __name__ == "__main__":
    main(sys.argv)
