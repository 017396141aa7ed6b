package org.sparknet.apps.data;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;
import org.apache.hadoop.fs.FSDataInputStream;
import org.sparknet.api.storage.StoragePath;

/**
 * A read-only {@link SeekableByteChannel} over a file on a Hadoop file system, by positioned reads
 * of its stream: jhdf reads an HDF5 header through it without the whole file being fetched.
 */
final class HadoopByteChannel implements SeekableByteChannel {
  private final FSDataInputStream in;
  private final long size;
  private long position;
  private boolean open = true;

  HadoopByteChannel(StoragePath path) {
    this.size = path.length();
    this.in = path.open();
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    check();
    if (position >= size) {
      return -1;
    }
    int want = (int) Math.min(dst.remaining(), size - position);
    byte[] buf = new byte[want];
    int n = in.read(position, buf, 0, want);
    if (n > 0) {
      dst.put(buf, 0, n);
      position += n;
    }
    return n;
  }

  @Override
  public int write(ByteBuffer src) {
    throw new NonWritableChannelException();
  }

  @Override
  public long position() throws IOException {
    check();
    return position;
  }

  @Override
  public SeekableByteChannel position(long newPosition) throws IOException {
    check();
    position = newPosition;
    return this;
  }

  @Override
  public long size() throws IOException {
    check();
    return size;
  }

  @Override
  public SeekableByteChannel truncate(long newSize) {
    throw new NonWritableChannelException();
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public void close() throws IOException {
    if (open) {
      open = false;
      in.close();
    }
  }

  private void check() throws ClosedChannelException {
    if (!open) {
      throw new ClosedChannelException();
    }
  }
}
