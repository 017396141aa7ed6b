"""Writes a LevelDB with plyvel (Google's LevelDB) for LevelDbStoreTest, and the records it holds.

Usage: write_leveldb.py DIR snappy|none EXPECTED LAYOUT
       write_leveldb.py DIR empty|reversed

A small write buffer and table size (1 MiB, LevelDB's least) make LevelDB flush and compact
often, so the records lie in tables on several levels; overwrites and deletions after the bulk load put newer versions of keys
in younger tables, and the last writes stay in the log only (LevelDB does not flush its memtable
on close). EXPECTED gets one line per live record in key order: the key, a tab, the SHA-256 of
the value. LAYOUT gets the number of table files at each level, as LevelDB reports them.
"""
import hashlib
import random
import sys
import time

import plyvel

RECORDS = 3000
VALUE_BYTES = 784


def value(i, version):
    """A 784-byte "image": 400 noisy bytes (from i and version) on zeros; Snappy halves it."""
    v = bytearray(VALUE_BYTES)
    start = (i * 7 + version * 131) % (VALUE_BYTES - 400)
    v[start : start + 400] = random.Random(i * 10 + version).randbytes(400)
    v[:8] = b"%08d" % i
    v[8] = version
    return bytes(v)


def settled_layout(db):
    """The number of tables at each level once LevelDB's background compaction is idle.

    Without reads, and with levels 1 and up far below their size limits, LevelDB compacts only
    when level 0 holds 4 tables or more; a compaction that finished between a look and close()
    would otherwise change the layout that the manifest records.
    """
    deadline = time.time() + 30
    while True:
        levels = [int(db.get_property(b"leveldb.num-files-at-level%d" % n)) for n in range(7)]
        if levels[0] < 4:
            return levels
        if time.time() > deadline:
            raise SystemExit("LevelDB's compaction did not settle: %s" % levels)
        time.sleep(0.01)


def special(path, mode):
    """An empty database, or one ordered by a comparator other than LevelDB's default."""
    if mode == "empty":
        plyvel.DB(path, create_if_missing=True, error_if_exists=True).close()
        return
    db = plyvel.DB(
        path,
        create_if_missing=True,
        error_if_exists=True,
        comparator=lambda a, b: (a < b) - (a > b),
        comparator_name=b"test.ReversedBytewise",
    )
    for i in range(10):
        db.put(b"%08d" % i, b"v")
    db.compact_range()
    db.close()


def main():
    if sys.argv[2] in ("empty", "reversed"):
        special(sys.argv[1], sys.argv[2])
        return
    path, compression, expected_path, layout_path = sys.argv[1:5]
    options = dict(
        compression=None if compression == "none" else "snappy",
        write_buffer_size=64 * 1024,
        max_file_size=1 << 20,  # the least LevelDB takes
        block_size=4096,
        bloom_filter_bits=10 if compression == "none" else 0,
    )
    db = plyvel.DB(path, create_if_missing=True, error_if_exists=True, **options)
    live = {}

    def put(wb, i, version):
        k = b"%08d" % i
        wb.put(k, value(i, version))
        live[k] = value(i, version)

    def delete(wb, i):
        k = b"%08d" % i
        wb.delete(k)
        live.pop(k, None)

    # Bulk load in batches of 50, in a shuffled order so that flushed tables overlap.
    order = sorted(range(RECORDS), key=lambda i: (i * 7919) % RECORDS)
    for b in range(0, RECORDS, 50):
        with db.write_batch() as wb:
            for i in order[b : b + 50]:
                put(wb, i, 0)
    # Overwrite every 7th key and delete every 11th: newer versions in younger tables.
    for i in range(0, RECORDS, 7):
        put(db, i, 1)
    for i in range(0, RECORDS, 11):
        delete(db, i)
    # Reopened, LevelDB turns the old log into a table and starts an empty memtable: the last
    # round of changes (under the write buffer's size) then stays in the new log only: new keys,
    # overwrites and deletions of keys in tables, a key deleted and put again.
    db.close()
    db = plyvel.DB(path, **options)
    for i in range(RECORDS, RECORDS + 20):
        put(db, i, 0)
    with db.write_batch() as wb:
        for i in range(3, RECORDS, 97):
            put(wb, i, 2)
        for i in range(5, RECORDS, 89):
            delete(wb, i)
        delete(wb, RECORDS + 1)
        put(wb, 0, 3)
    delete(db, 13)
    put(db, 13, 4)

    levels = settled_layout(db)
    db.close()
    with open(expected_path, "w") as out:
        for k in sorted(live):
            out.write("%s\t%s\n" % (k.decode(), hashlib.sha256(live[k]).hexdigest()))
    with open(layout_path, "w") as out:
        out.write(" ".join(str(n) for n in levels) + "\n")


if __name__ == "__main__":
    main()
