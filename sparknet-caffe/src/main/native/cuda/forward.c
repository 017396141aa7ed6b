/*
 * A forwarding library. It stands in for a CUDA 11 library that Caffe's GPU libcaffe links
 * (libcublas.so.11, libcudnn.so.8) on machines that have only a newer major version of it
 * (cuBLAS 12 or 13, cuDNN 9), and sends every call to the same function of that version. The
 * functions Caffe calls kept their names, parameters and enum values across these versions (see
 * docs/gpu.md); only the soname and the symbol version node changed, and glibc checks both, so a
 * symbolic link cannot do this.
 *
 * Each exported function is one indirect jump through a pointer, so the arguments and the result
 * pass untouched whatever the signature. The pointers are bound once, when the library is loaded,
 * to the target library that is already loaded (SparkNet loads it first, by path), else to the
 * first target the dynamic loader finds.
 *
 * build.sh compiles this file once per library, with FUNCTIONS (a generated file of FORWARD(name)
 * lines, one per function libcaffe asks for) and TARGETS (the target sonames, newest first), and
 * links it with a version script that exports exactly those functions under the old version node.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

/* glibc 2.34 moved dlopen and dlsym into libc under a new symbol version; asking for the old one
 * keeps the library loadable on the older glibc of many GPU clusters. */
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");

/* An unbound function returns status 1, which is NOT_INITIALIZED in both cuBLAS and cuDNN, rather
 * than jumping to address 0. SparkNet checks that the target has every function before it loads
 * Caffe, so this is a last guard, never the normal path. */
static int unbound(void) { return 1; }

#define FORWARD(name)                                                                   \
  __attribute__((visibility("hidden"))) void *forward_##name = (void *)&unbound;        \
  __asm__(".text\n.globl " #name "\n.type " #name ",@function\n" #name                  \
          ":\n\tjmp *forward_" #name "(%rip)\n.size " #name ",.-" #name "\n");
#include FUNCTIONS
#undef FORWARD

static const char *const targets[] = {TARGETS, 0};

__attribute__((constructor)) static void bind(void) {
  void *target = 0;
  for (int i = 0; targets[i] && !target; i++) {
    target = dlopen(targets[i], RTLD_NOW | RTLD_NOLOAD);
  }
  for (int i = 0; targets[i] && !target; i++) {
    target = dlopen(targets[i], RTLD_NOW);
  }
  if (!target) {
    return;
  }
#define FORWARD(name)                           \
  {                                             \
    void *f = dlsym(target, #name);             \
    if (f) {                                    \
      forward_##name = f;                       \
    }                                           \
  }
#include FUNCTIONS
#undef FORWARD
}
