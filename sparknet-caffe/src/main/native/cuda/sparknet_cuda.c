/*
 * The native half of org.sparknet.caffe.internal.CudaNatives: what SparkNet asks of the CUDA
 * driver and libraries before Caffe makes its first GPU call. Caffe aborts the whole process on a
 * failed CUDA, cuBLAS or cuDNN call (its CHECK macros), so every way a GPU can fail that can be
 * found beforehand is found here and turned into a status code that Java words as an error.
 *
 * Nothing is linked: the driver (libcuda.so.1) and the libraries are opened with dlopen, so this
 * library loads on any machine, GPU or not, and a missing driver is an answer, not a load error.
 * The driver API is declared here (a few functions, stable since CUDA 4) so that the build needs
 * no CUDA headers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <jni.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* See forward.c: the pre-2.34 symbol versions keep this library loadable on older glibc. */
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dlerror,dlerror@GLIBC_2.2.5");

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;

enum { CC_MAJOR = 75, CC_MINOR = 76 }; /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR */

/* Codes of our own, below any CUresult or library status (all >= 0). */
enum { NO_DRIVER = -1, NO_SYMBOL = -2, NO_LIBRARY = -3 };

static struct {
  void *lib;
  CUresult (*init)(unsigned);
  CUresult (*driverVersion)(int *);
  CUresult (*deviceCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceName)(char *, int, CUdevice);
  CUresult (*attribute)(int *, int, CUdevice);
  CUresult (*retain)(CUcontext *, CUdevice);
  CUresult (*release)(CUdevice);
  CUresult (*push)(CUcontext);
  CUresult (*pop)(CUcontext *);
  CUresult (*memInfo)(size_t *, size_t *);
  CUresult (*loadData)(CUmodule *, const void *);
  CUresult (*unload)(CUmodule);
  CUresult (*errorName)(CUresult, const char **);
  CUresult initResult;
} cu;

static char driverError[512];

#define BIND(field, name)                          \
  if (!(cu.field = dlsym(cu.lib, name))) {         \
    strcpy(driverError, "libcuda.so.1 lacks " name); \
    cu.lib = NULL;                                 \
    return 0;                                      \
  }

/* Opens the driver once; 0 when it cannot (driverError says why). Called under the Java lock. */
static int driver(void) {
  if (cu.lib) {
    return 1;
  }
  if (driverError[0]) {
    return 0;
  }
  cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  if (!cu.lib) {
    const char *e = dlerror();
    strncpy(driverError, e ? e : "libcuda.so.1 cannot be opened", sizeof driverError - 1);
    return 0;
  }
  BIND(init, "cuInit");
  BIND(driverVersion, "cuDriverGetVersion");
  BIND(deviceCount, "cuDeviceGetCount");
  BIND(deviceGet, "cuDeviceGet");
  BIND(deviceName, "cuDeviceGetName");
  BIND(attribute, "cuDeviceGetAttribute");
  BIND(retain, "cuDevicePrimaryCtxRetain");
  BIND(release, "cuDevicePrimaryCtxRelease_v2");
  BIND(push, "cuCtxPushCurrent_v2");
  BIND(pop, "cuCtxPopCurrent_v2");
  BIND(memInfo, "cuMemGetInfo_v2");
  BIND(loadData, "cuModuleLoadData");
  BIND(unload, "cuModuleUnload");
  BIND(errorName, "cuGetErrorName");
  cu.initResult = cu.init(0);
  return 1;
}

#define JNI(type, name) JNIEXPORT type JNICALL Java_org_sparknet_caffe_internal_CudaNatives_##name

/* Opens a library (a path or a soname) for good, with its symbols global; null or dlerror(). */
JNI(jstring, open)(JNIEnv *env, jclass c, jstring library) {
  const char *path = (*env)->GetStringUTFChars(env, library, NULL);
  void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  (*env)->ReleaseStringUTFChars(env, library, path);
  if (h) {
    return NULL;
  }
  const char *e = dlerror();
  return (*env)->NewStringUTF(env, e ? e : "dlopen failed");
}

/* The loaded library's handle, or NULL. */
static void *loaded(JNIEnv *env, jstring library) {
  const char *path = (*env)->GetStringUTFChars(env, library, NULL);
  void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  (*env)->ReleaseStringUTFChars(env, library, path);
  return h;
}

/* Whether the already loaded library defines the function. */
JNI(jboolean, defines)(JNIEnv *env, jclass c, jstring library, jstring function) {
  void *h = loaded(env, library);
  if (!h) {
    return JNI_FALSE;
  }
  const char *name = (*env)->GetStringUTFChars(env, function, NULL);
  void *f = dlsym(h, name);
  (*env)->ReleaseStringUTFChars(env, function, name);
  return f ? JNI_TRUE : JNI_FALSE;
}

/* A library's property through its GetProperty(type, int *value) function (cuBLAS, cuDNN, cuRAND
 * all have one; type 0 major, 1 minor, 2 patch); negative when it cannot be asked. */
JNI(jint, property)(JNIEnv *env, jclass c, jstring library, jstring function, jint type) {
  void *h = loaded(env, library);
  if (!h) {
    return NO_LIBRARY;
  }
  const char *name = (*env)->GetStringUTFChars(env, function, NULL);
  int (*get)(int, int *) = (int (*)(int, int *))dlsym(h, name);
  (*env)->ReleaseStringUTFChars(env, function, name);
  int value = -1;
  if (!get) {
    return NO_SYMBOL;
  }
  return get(type, &value) == 0 ? value : NO_SYMBOL;
}

/* Sets an environment variable unless it is set; the CUDA driver and runtime read theirs from the
 * process's environment when they initialize, which a JVM cannot change otherwise. */
JNI(void, defaultEnv)(JNIEnv *env, jclass c, jstring name, jstring value) {
  const char *n = (*env)->GetStringUTFChars(env, name, NULL);
  const char *v = (*env)->GetStringUTFChars(env, value, NULL);
  setenv(n, v, 0);
  (*env)->ReleaseStringUTFChars(env, name, n);
  (*env)->ReleaseStringUTFChars(env, value, v);
}

/* Why the driver could not be opened (empty when it could). */
JNI(jstring, driverError)(JNIEnv *env, jclass c) {
  driver();
  return (*env)->NewStringUTF(env, driverError);
}

/* The CUDA version the driver supports (13000 for 13.0), or NO_DRIVER. */
JNI(jint, driverVersion)(JNIEnv *env, jclass c) {
  int v = 0;
  if (!driver()) {
    return NO_DRIVER;
  }
  return cu.driverVersion(&v) == 0 ? v : NO_DRIVER;
}

/* The devices the driver shows this process, or minus cuInit's CUresult when it failed. */
JNI(jint, deviceCount)(JNIEnv *env, jclass c) {
  int n = 0;
  if (!driver()) {
    return NO_DRIVER;
  }
  if (cu.initResult != 0) {
    return -cu.initResult;
  }
  CUresult r = cu.deviceCount(&n);
  return r == 0 ? n : -r;
}

/* The driver's name for a CUresult ("CUDA_ERROR_NO_DEVICE"). */
JNI(jstring, errorName)(JNIEnv *env, jclass c, jint result) {
  const char *name = NULL;
  if (driver() && cu.errorName(result, &name) == 0 && name) {
    return (*env)->NewStringUTF(env, name);
  }
  return (*env)->NewStringUTF(env, "CUDA error");
}

JNI(jstring, deviceName)(JNIEnv *env, jclass c, jint ordinal) {
  char name[256] = "";
  CUdevice d;
  if (driver() && cu.initResult == 0 && cu.deviceGet(&d, ordinal) == 0) {
    cu.deviceName(name, sizeof name, d);
  }
  return (*env)->NewStringUTF(env, name);
}

/*
 * What one device offers, as {compute capability major, minor, JIT result, free bytes, total
 * bytes, context result}: the JIT result is cuModuleLoadData's CUresult for the given PTX (Caffe's
 * kernels exist only as sm_35 PTX, which the driver must compile for newer GPUs), the memory is
 * what the device has free now, and a context result other than 0 means no other field was read.
 */
JNI(jlongArray, device)(JNIEnv *env, jclass c, jint ordinal, jstring ptx) {
  jlong out[6] = {0, 0, -1, -1, -1, NO_DRIVER};
  CUdevice d;
  CUcontext ctx;
  if (driver() && (out[5] = cu.initResult) == 0 && (out[5] = cu.deviceGet(&d, ordinal)) == 0) {
    int major = 0, minor = 0;
    cu.attribute(&major, CC_MAJOR, d);
    cu.attribute(&minor, CC_MINOR, d);
    out[0] = major;
    out[1] = minor;
    if ((out[5] = cu.retain(&ctx, d)) == 0) {
      if ((out[5] = cu.push(ctx)) == 0) {
        size_t free = 0, total = 0;
        if (cu.memInfo(&free, &total) == 0) {
          out[3] = (jlong)free;
          out[4] = (jlong)total;
        }
        if (ptx) {
          const char *text = (*env)->GetStringUTFChars(env, ptx, NULL);
          CUmodule m;
          out[2] = cu.loadData(&m, text);
          if (out[2] == 0) {
            cu.unload(m);
          }
          (*env)->ReleaseStringUTFChars(env, ptx, text);
        }
        cu.pop(&ctx);
      }
      cu.release(d);
    }
  }
  jlongArray result = (*env)->NewLongArray(env, 6);
  (*env)->SetLongArrayRegion(env, result, 0, 6, out);
  return result;
}

/*
 * Creates and destroys a library handle on a device, as Caffe does at its first GPU call:
 * create(&handle, arg) then destroy(handle), inside the device's primary context (the one Caffe's
 * CUDA runtime will use). cublasCreate_v2 and cudnnCreate take one argument and ignore arg;
 * curandCreateGenerator takes the generator type. Returns create's status (0 for success),
 * NO_SYMBOL or NO_LIBRARY, or -1000 - the CUresult when the context failed.
 */
JNI(jint, handle)(JNIEnv *env, jclass c, jint ordinal, jstring library, jstring create,
                  jstring destroy, jint arg) {
  void *h = loaded(env, library);
  if (!h) {
    return NO_LIBRARY;
  }
  const char *cname = (*env)->GetStringUTFChars(env, create, NULL);
  const char *dname = (*env)->GetStringUTFChars(env, destroy, NULL);
  int (*make)(void **, int) = (int (*)(void **, int))dlsym(h, cname);
  int (*drop)(void *) = (int (*)(void *))dlsym(h, dname);
  (*env)->ReleaseStringUTFChars(env, create, cname);
  (*env)->ReleaseStringUTFChars(env, destroy, dname);
  if (!make || !drop) {
    return NO_SYMBOL;
  }
  CUdevice d;
  CUcontext ctx;
  CUresult r = !driver() ? 999 : cu.initResult != 0 ? cu.initResult : cu.deviceGet(&d, ordinal);
  if (r == 0 && (r = cu.retain(&ctx, d)) == 0) {
    if ((r = cu.push(ctx)) == 0) {
      void *handle = NULL;
      int status = make(&handle, arg);
      if (status == 0) {
        drop(handle);
      }
      cu.pop(&ctx);
      cu.release(d);
      return status;
    }
    cu.release(d);
  }
  return -1000 - r;
}
