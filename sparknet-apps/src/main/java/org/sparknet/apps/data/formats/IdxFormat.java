package org.sparknet.apps.data.formats;

import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.apps.data.IdxInput;

/**
 * MNIST-style IDX images, plain or gzip, with a labels file found by MNIST's naming convention or
 * given as {@link DataRequest#labelsUri()}.
 */
public final class IdxFormat extends NamedFormat {
  private static final long serialVersionUID = 1L;

  public IdxFormat() {
    super("idx", "MNIST-style IDX images + labels files, plain or .gz", Kind.RAW);
  }

  /** IDX alone names its labels in a file of their own. */
  @Override
  boolean takesLabelsFile() {
    return true;
  }

  @Override
  DataSource openData(DataRequest r) {
    StoragePath imgs = IdxInput.file(r.uri(), r.option());
    StoragePath labels = IdxInput.labels(imgs, r.labelsUri(), r.labelsOption(), r.labelsRequired());
    IdxDataset idx =
        labels == null ? IdxDataset.openUnlabelled(imgs) : IdxDataset.open(imgs, labels, 256);
    return ShardedSource.of(this, idx);
  }
}
