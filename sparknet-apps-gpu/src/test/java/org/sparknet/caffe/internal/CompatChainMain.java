package org.sparknet.caffe.internal;

import java.io.File;
import org.bytedeco.javacpp.Loader;
import org.sparknet.caffe.internal.CudaLibraries.Found;

/**
 * Loads the GPU jar's CUDA chain as the GPU build does on a machine with a GPU ({@link
 * CudaLibraries} on this machine's search path, then {@link CudaChain}), then opens the GPU
 * libcaffe with every symbol bound at once (RTLD_NOW): the dynamic loader then fails on any CUDA
 * function that the chain does not define under the version node libcaffe asks for. The GPU build
 * itself loads libcaffe lazily, through JavaCPP, and only where a driver and a device exist; this
 * is the check a machine without them can make. Prints one line a step; exit 0 when libcaffe bound.
 * Run by {@code CudaCompatIT} in a child JVM, with the GPU jar on the class path.
 */
public final class CompatChainMain {
  private CompatChainMain() {}

  public static void main(String[] args) throws Exception {
    java.nio.file.Path natives = CudaNativeFiles.extract();
    CudaNatives.load(natives);
    CudaLibraries libs =
        CudaLibraries.find(CudaSearchPath.ofThisMachine(), natives.resolve(CudaLibraries.CUDART));
    CudaChain chain = CudaChain.load(libs, natives);
    System.out.println("chain: " + chain.description());
    System.out.println("runtime: " + libs.cudart());
    for (Found f : libs.found()) {
      System.out.println("library: " + f.file());
    }
    // A call as libcaffe makes it, through the name it links (the forwarding library on the
    // compat path), reaches the library found.
    for (String[] call :
        new String[][] {
          {"libcublas.so.11", "cublasSgemm_v2"}, {"libcudnn.so.8", "cudnnConvolutionForward"}
        }) {
      System.out.println(
          "call "
              + call[1]
              + " through "
              + call[0]
              + ": "
              + CudaNatives.property(call[0], call[1], 0));
    }
    // libcaffe's other dependencies, which JavaCPP loads for the CPU and the GPU build alike.
    Loader.load(org.bytedeco.openblas.global.openblas.class);
    Loader.load(org.bytedeco.hdf5.global.hdf5.class);
    Loader.load(org.bytedeco.opencv.global.opencv_highgui.class);
    File libcaffe =
        Loader.cacheResource(
            "/org/bytedeco/caffe/" + Loader.getPlatform() + "-gpu/libcaffe.so.1.0.0");
    String error = CudaNatives.open(libcaffe.getAbsolutePath());
    System.out.println(
        error == null ? "libcaffe (GPU): every symbol bound" : "libcaffe (GPU): " + error);
    System.exit(error == null ? 0 : 1);
  }
}
