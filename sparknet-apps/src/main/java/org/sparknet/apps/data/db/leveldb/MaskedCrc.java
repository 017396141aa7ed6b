package org.sparknet.apps.data.db.leveldb;

import java.util.zip.CRC32C;

/**
 * LevelDB's stored checksums: CRC-32C, masked (rotated and offset) so that the CRC of data that
 * holds CRCs is not trivially related to them. A log record's covers its type byte and data, a
 * table block's its contents and the compression byte: both are contiguous in the file.
 */
final class MaskedCrc {
  private static final int MASK_DELTA = 0xa282ead8;

  private MaskedCrc() {}

  /** The masked CRC-32C of {@code buf[off, off + len)}. */
  static int of(byte[] buf, int off, int len) {
    CRC32C crc = new CRC32C();
    crc.update(buf, off, len);
    int c = (int) crc.getValue();
    return ((c >>> 15) | (c << 17)) + MASK_DELTA;
  }
}
