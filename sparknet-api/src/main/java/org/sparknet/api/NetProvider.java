package org.sparknet.api;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Builds nets of one engine. Engines register through {@link ServiceLoader} (a {@code
 * META-INF/services/org.sparknet.api.NetProvider} entry), so this module never depends on them.
 */
public interface NetProvider {

  /** The engine name that {@link NetDefinition#engine()} refers to, for example "caffe". */
  String engine();

  /**
   * Validates the definition and builds the net. Bad definitions throw {@link
   * IllegalArgumentException} naming the file, layer or field at fault; an engine never lets a bad
   * definition abort the JVM.
   */
  Net create(NetDefinition definition);

  /** Builds a net with the provider registered for {@code definition.engine()}. */
  static Net build(NetDefinition definition) {
    return forEngine(definition.engine()).create(definition);
  }

  /** The provider for {@code engine}; the error lists the engines that are on the class path. */
  static NetProvider forEngine(String engine) {
    List<String> found = new ArrayList<>();
    for (NetProvider p :
        ServiceLoader.load(NetProvider.class, NetProvider.class.getClassLoader())) {
      if (p.engine().equals(engine)) {
        return p;
      }
      found.add(p.engine());
    }
    throw new IllegalArgumentException(
        "No net engine '"
            + engine
            + "' on the class path (found "
            + found
            + "); add the module that provides it, for example sparknet-caffe");
  }
}
