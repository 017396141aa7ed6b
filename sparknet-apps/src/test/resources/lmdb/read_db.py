"""Reads a Caffe LMDB or LevelDB of raw Datums with Debian's python3-lmdb or python3-plyvel and
decodes each Datum by hand from protobuf's wire format (no SparkNet, no caffe_pb2), writing one
line a record in key order:

    KEY C H W LABEL data|float_data VALUES

VALUES: the data bytes as hex, or the float_data as comma-separated repr()s.

usage: read_db.py lmdb|leveldb DB OUT
"""
import struct
import sys


def varint(b, i):
    v = shift = 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << shift
        shift += 7
        if x < 0x80:
            return v, i


def int32(v):
    v &= 0xFFFFFFFFFFFFFFFF
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def datum(b):
    f = {1: 0, 2: 0, 3: 0, 5: 0}
    data, floats = None, None
    i = 0
    while i < len(b):
        tag, i = varint(b, i)
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            v, i = varint(b, i)
            f[field] = int32(v)
        elif wire == 2:
            n, i = varint(b, i)
            chunk = b[i:i + n]
            i += n
            if field == 4:
                data = chunk
            elif field == 6:
                floats = (floats or []) + list(struct.unpack("<%df" % (n // 4), chunk))
            else:
                raise ValueError("unexpected length-delimited field %d" % field)
        else:
            raise ValueError("unexpected wire type %d of field %d" % (wire, field))
    return f, data, floats


def records(backend, path):
    if backend == "lmdb":
        import lmdb
        env = lmdb.open(path, readonly=True, lock=False, subdir=True)
        with env.begin() as txn:
            for k, v in txn.cursor():
                yield bytes(k), bytes(v)
        env.close()
    else:
        import plyvel
        db = plyvel.DB(path, create_if_missing=False)
        for k, v in db:
            yield k, v
        db.close()


def main():
    backend, path, out = sys.argv[1:4]
    with open(out, "w") as o:
        for k, v in records(backend, path):
            f, data, floats = datum(v)
            if data is not None and floats is not None:
                raise ValueError("record %r has both data and float_data" % k)
            kind = "data" if data is not None else "float_data"
            values = data.hex() if data is not None else ",".join(repr(x) for x in floats)
            o.write("%s %d %d %d %d %s %s\n" % (k.decode("ascii"), f[1], f[2], f[3], f[5], kind, values))


if __name__ == "__main__":
    main()
