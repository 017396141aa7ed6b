"""Writes the LMDBs (and one LevelDB) that LmdbStoreTest and DatumTest read, with python3-lmdb and
python3-plyvel, Caffe Datum messages hand-encoded in protobuf's wire format (caffe.proto: channels=1,
height=2, width=3, data=4, label=5, float_data=6, encoded=7).

usage: write_lmdbs.py KIND OUT_DIR [N]
Besides the database at OUT_DIR, kinds with pixels write OUT_DIR.expected: per record in key order,
the CHW bytes (uint8) or floats (little-endian float32) a reader must produce, and OUT_DIR.labels:
one int32 label per record.
"""
import gzip
import io
import struct
import sys

import lmdb

FASHION = "/usr/share/datasets/fashion-mnist/"


def varint(v):
    v &= (1 << 64) - 1  # negative int32 values are sign-extended to 10 bytes, as protobuf does
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, b):
    return varint(num << 3 | 2) + varint(len(b)) + b


def datum(channels=None, height=None, width=None, data=None, label=None, floats=None,
          packed=False, encoded=False, extra=b""):
    out = bytearray()
    if channels is not None:
        out += field_varint(1, channels)
    if height is not None:
        out += field_varint(2, height)
    if width is not None:
        out += field_varint(3, width)
    if data is not None:
        out += field_bytes(4, data)
    if label is not None:
        out += field_varint(5, label)
    out += extra
    if floats:
        if packed:
            out += field_bytes(6, struct.pack("<%df" % len(floats), *floats))
        else:
            for f in floats:
                out += varint(6 << 3 | 5) + struct.pack("<f", f)
    if encoded:
        out += field_varint(7, 1)
    return bytes(out)


def fashion(n):
    with gzip.open(FASHION + "train-images-idx3-ubyte.gz") as f:
        magic, count, rows, cols = struct.unpack(">IIII", f.read(16))
        assert magic == 2051 and rows == 28 and cols == 28
        images = [f.read(784) for _ in range(n)]
    with gzip.open(FASHION + "train-labels-idx1-ubyte.gz") as f:
        f.read(8)
        labels = list(f.read(n))
    return images, labels


def write(out, records, map_size=1 << 28):
    env = lmdb.open(out, map_size=map_size, subdir=True)
    with env.begin(write=True) as txn:
        for k, v in records:
            txn.put(k, v)
    env.close()


def expectations(out, pixels, labels):
    with open(out + ".expected", "wb") as f:
        for p in pixels:
            f.write(p)
    with open(out + ".labels", "wb") as f:
        f.write(struct.pack("<%di" % len(labels), *labels))


def mnist(out, n):
    """convert_mnist_data's layout: keys %08d, 1x28x28 raw bytes, the label."""
    images, labels = fashion(n)
    write(out, [(b"%08d" % i, datum(1, 28, 28, images[i], labels[i])) for i in range(n)])
    expectations(out, images, labels)


def tinted(img, i):
    """A 3x32x32 CHW image made from a 28x28 grey one: centred, each plane tinted differently."""
    tints = [(1.0, 0.6, 0.3), (0.3, 1.0, 0.6), (0.6, 0.3, 1.0)][i % 3]
    chw = bytearray(3 * 32 * 32)
    for c in range(3):
        for y in range(28):
            for x in range(28):
                chw[c * 1024 + (y + 2) * 32 + x + 2] = round(img[y * 28 + x] * tints[c])
    return bytes(chw)


def cifar(out, n):
    """3x32x32 raw records: 3,072 data bytes, more than a 4 KiB page's node holds (overflow)."""
    images, labels = fashion(n)
    chw = [tinted(images[i], i) for i in range(n)]
    write(out, [(b"%08d" % i, datum(3, 32, 32, chw[i], labels[i])) for i in range(n)])
    expectations(out, chw, labels)


def floats(out, n):
    """2x3x4 float_data records, packed and not, with unknown fields (8: varint, 9: bytes)."""
    recs, values, labels = [], [], []
    for i in range(n):
        fl = [i + j * 0.25 - 3.0 for j in range(24)]
        extra = field_varint(8, 300 + i) + field_bytes(9, b"unknown")
        label = -1 if i == 0 else i % 7  # a negative label is a 10-byte varint
        recs.append((b"%08d" % i, datum(2, 3, 4, None, label, fl, packed=i % 2 == 1, extra=extra)))
        values.append(struct.pack("<24f", *fl))
        labels.append(label)
    write(out, recs)
    expectations(out, values, labels)


def encoded(out, n):
    """convert_imageset --encoded: encoded image bytes, encoded=true, no shape fields. Records alternate
    colour PNG (lossless), grey PNG, colour JPEG; expected pixels are the source pixels (PNG) or PIL's
    decode of the JPEG bytes (BGR, CHW; grey PNG: one plane)."""
    from PIL import Image
    images, labels = fashion(n)
    recs, expected = [], []
    for i in range(n):
        chw = tinted(images[i], i)
        if i % 3 == 1:
            img = Image.frombytes("L", (28, 28), images[i])
            fmt = "PNG"
        else:
            rgb = bytearray(32 * 32 * 3)
            for y in range(32):
                for x in range(32):
                    for c in range(3):  # CHW planes are B, G, R
                        rgb[(y * 32 + x) * 3 + 2 - c] = chw[c * 1024 + y * 32 + x]
            img = Image.frombytes("RGB", (32, 32), bytes(rgb))
            fmt = "PNG" if i % 3 == 0 else "JPEG"
        buf = io.BytesIO()
        img.save(buf, format=fmt, quality=90)
        enc = buf.getvalue()
        if fmt == "JPEG":
            dec = Image.open(io.BytesIO(enc)).convert("RGB").tobytes()
            chw = bytes(dec[(p % 1024) * 3 + 2 - p // 1024] for p in range(3 * 1024))
        elif i % 3 == 1:
            chw = images[i]
        recs.append((b"%08d" % i, datum(data=enc, label=labels[i], encoded=True)))
        expected.append(chw)
    write(out, recs)
    expectations(out, expected, labels)


def many(out, n):
    """n small records under convert_imageset-style keys (%08d_<path>): a tree of depth >= 3."""
    recs = []
    for i in range(n):
        key = b"%08d_train/class_%d/image_%06d.png" % (i, i % 10, i)
        recs.append((key, datum(1, 1, 4, struct.pack("<I", i), i % 10)))
    write(out, recs)
    with open(out + ".labels", "wb") as f:
        f.write(struct.pack("<%di" % n, *[i % 10 for i in range(n)]))


def big(out, n):
    """n records of 3x64x64 bytes (12 KiB each, on overflow pages): n = 20,000 is a 250 MB LMDB."""
    import os
    recs = ((b"%08d" % i, datum(3, 64, 64, os.urandom(3 * 64 * 64), i % 10)) for i in range(n))
    write(out, recs, map_size=1 << 34)


def empty(out, n):
    write(out, [])


def malformed(out, n):
    """Good records around one whose data field claims more bytes than the record holds."""
    images, labels = fashion(3)
    good = [datum(1, 28, 28, images[i], labels[i]) for i in range(3)]
    bad = field_varint(1, 1) + varint(4 << 3 | 2) + varint(5000) + images[1][:10]
    write(out, [(b"00000000", good[0]), (b"00000001", bad), (b"00000002", good[2])])


def subdb(out, n):
    env = lmdb.open(out, map_size=1 << 24, max_dbs=2)
    named = env.open_db(b"images")
    with env.begin(write=True, db=named) as txn:
        txn.put(b"00000000", datum(1, 1, 1, b"\x07", 0))
    env.close()


def dupsort(out, n):
    """A dup-sort main database. python3-lmdb refuses flags on the main database, so this calls
    liblmdb (the library python3-lmdb is linked with) through ctypes."""
    import ctypes
    import os
    lib = ctypes.CDLL("liblmdb.so.0")
    MDB_CREATE, MDB_DUPSORT = 0x40000, 0x04

    class Val(ctypes.Structure):
        _fields_ = [("size", ctypes.c_size_t), ("data", ctypes.c_void_p)]

    lib.mdb_strerror.restype = ctypes.c_char_p

    def ok(rc):
        assert rc == 0, lib.mdb_strerror(rc)

    os.makedirs(out, exist_ok=True)
    env, txn, dbi = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_uint()
    ok(lib.mdb_env_create(ctypes.byref(env)))
    ok(lib.mdb_env_open(env, out.encode(), 0, 0o644))
    ok(lib.mdb_txn_begin(env, None, 0, ctypes.byref(txn)))
    ok(lib.mdb_dbi_open(txn, None, MDB_CREATE | MDB_DUPSORT, ctypes.byref(dbi)))
    for label in (0, 1):
        k, v = b"00000000", datum(1, 1, 1, bytes([7 + label]), label)
        kb, vb = ctypes.create_string_buffer(k, len(k)), ctypes.create_string_buffer(v, len(v))
        key = Val(len(k), ctypes.cast(kb, ctypes.c_void_p))
        val = Val(len(v), ctypes.cast(vb, ctypes.c_void_p))
        ok(lib.mdb_put(txn, dbi, ctypes.byref(key), ctypes.byref(val), 0))
    ok(lib.mdb_txn_commit(txn))
    lib.mdb_env_close(env)


def leveldb(out, n):
    import plyvel
    db = plyvel.DB(out, create_if_missing=True)
    db.put(b"00000000", datum(1, 1, 1, b"\x07", 0))
    db.close()


if __name__ == "__main__":
    kind, out = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    globals()[kind](out, count)
