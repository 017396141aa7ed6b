package org.sparknet.apps.data.formats;

import java.util.ArrayList;
import java.util.List;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.CifarDataset;
import org.sparknet.apps.data.CifarFile;
import org.sparknet.apps.data.IdxInput;

/**
 * CIFAR-10 binary batches (one or several files, comma-separated); {@link Cifar100Format} is the
 * CIFAR-100 variant. Channels stay in the files' R,G,B order, as Caffe's convert_cifar_data keeps
 * them.
 */
public class CifarFormat extends NamedFormat {
  private static final long serialVersionUID = 1L;

  public CifarFormat() {
    this("cifar", "CIFAR-10 binary batches (.bin)");
  }

  CifarFormat(String name, String description, String... settings) {
    super(name, description, Kind.IMAGE, settings);
  }

  CifarFile.Variant variant() {
    return CifarFile.Variant.CIFAR10;
  }

  boolean coarse(DataRequest r) {
    return false;
  }

  @Override
  DataSource openData(DataRequest r) {
    List<StoragePath> files = new ArrayList<>();
    for (String part : r.uri().split(",")) {
      files.add(IdxInput.file(part.strip(), r.option()));
    }
    CifarDataset cifar = CifarDataset.openAt(files, variant(), coarse(r));
    List<Integer> shape = CifarDataset.sampleShape();
    return new ShardedSource(
        this,
        cifar.count(),
        true,
        shape,
        (sc, plan) ->
            cifar.toRdd(sc, plan.partitions(), plan.scale(), Sources.meanTransform(plan, shape)));
  }

  /** CIFAR-100: the fine label (100 classes) or, with {@code cifar100-label=coarse}, the coarse. */
  public static final class Cifar100Format extends CifarFormat {
    private static final long serialVersionUID = 1L;

    public Cifar100Format() {
      super("cifar100", "CIFAR-100 binary batches (.bin)", "cifar100-label");
    }

    @Override
    CifarFile.Variant variant() {
      return CifarFile.Variant.CIFAR100;
    }

    @Override
    boolean coarse(DataRequest r) {
      String label = r.setting("cifar100-label", "fine");
      if (!label.equals("fine") && !label.equals("coarse")) {
        throw new IllegalArgumentException(
            "--cifar100-label must be fine or coarse but was '" + label + "'");
      }
      return label.equals("coarse");
    }
  }
}
