package org.sparknet.api.storage;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * The magic number and version that open each of SparkNet's binary files (the weights file, the
 * trainer's checkpoint), written and checked alike; {@code kind} names the file in messages.
 */
public record FormatHeader(int magic, int version, String kind) {

  public void write(DataOutput out) throws IOException {
    out.writeInt(magic);
    out.writeInt(version);
  }

  /**
   * Reads the header at the start of {@code in}: null when it is this one, else what is wrong,
   * naming {@code source}, for the caller to throw as its format's error.
   */
  public String mismatch(DataInput in, String source) throws IOException {
    if (in.readInt() != magic) {
      return source + " is not a SparkNet " + kind;
    }
    int found = in.readInt();
    if (found != version) {
      return source + " has " + kind + " version " + found + "; this SparkNet reads " + version;
    }
    return null;
  }
}
