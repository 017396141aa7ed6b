#!/usr/bin/python3
"""Writes an MNIST-style IDX pair (images, labels; .gz or plain) as an image folder: one subfolder
per label (0 ... 9) of grey PNG files named by the record's index (%08d.png), written by Debian's
python3-pil, so that the same images can be read as LMDB, Parquet and image files.

    /usr/bin/python3 idx_to_images.py IMAGES.gz LABELS.gz OUT_DIR [LIMIT]
"""
import os
import sys

from PIL import Image

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from idx_to_lmdb import read_pair  # noqa: E402


def main(argv):
    count, height, width, pixels, labels = read_pair(argv, __doc__)
    size = height * width
    for label in sorted(set(labels[:count])):
        os.makedirs(os.path.join(argv[3], str(label)), exist_ok=True)
    for i in range(count):
        image = Image.frombytes("L", (width, height), pixels[i * size:(i + 1) * size])
        image.save(os.path.join(argv[3], str(labels[i]), "%08d.png" % i))
    print("%s: %d PNG files of %dx%d" % (argv[3], count, height, width))


if __name__ == "__main__":
    main(sys.argv)
