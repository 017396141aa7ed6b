/*
 * Opens each library named on the command line with RTLD_NOW, as the JVM's loader would open it
 * but binding every symbol at once: it fails, naming the symbol or soname, unless the whole chain
 * resolves. gpu-check uses it to show that the GTK stub satisfies OpenCV's highgui.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    void *h = dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL);
    printf("dlopen(RTLD_NOW) %s: %s\n", argv[i], h ? "ok" : dlerror());
    if (!h) {
      return 1;
    }
  }
  return 0;
}
