/* runtime/library.c — loading compiled kernel libraries and looking up their kernels.
 * In: a path to a .so built by tilec. Out: a tilec_library whose kernel table has been
 * checked against this runtime's ABI, or a status saying exactly what did not match. */
#include "tilec/runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A table this long is not a kernel list but a missing NULL terminator. */
#define MAX_KERNELS 65536u
/* More parameters than any kernel has: a corrupt count. */
#define MAX_PARAMS 4096u
#define MAX_SEGMENTS 32

/* The library's mapped segments: everything a descriptor points at (parameter table,
 * strings, program) must lie in them, so a corrupt count or pointer is refused at load
 * instead of read out of bounds at launch. */
typedef struct segments {
  uintptr_t lo[MAX_SEGMENTS], hi[MAX_SEGMENTS];
  bool exec[MAX_SEGMENTS];
  int n;
  uintptr_t base;
  const char *name;
} segments;

static int collect_segments(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  segments *sg = data;
  if (info->dlpi_addr != sg->base || !info->dlpi_name || strcmp(info->dlpi_name, sg->name) != 0) return 0;
  for (int i = 0; i < info->dlpi_phnum && sg->n < MAX_SEGMENTS; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R)) continue;
    sg->lo[sg->n] = info->dlpi_addr + ph->p_vaddr;
    sg->hi[sg->n] = sg->lo[sg->n] + ph->p_memsz;
    sg->exec[sg->n] = (ph->p_flags & PF_X) != 0;
    sg->n++;
  }
  return 1;
}

/* [p, p + size) inside one segment (executable ones only with exec). */
static bool in_library(const segments *sg, const void *p, size_t size, bool exec) {
  uintptr_t a = (uintptr_t)p;
  for (int i = 0; i < sg->n; i++)
    if (a >= sg->lo[i] && a <= sg->hi[i] && size <= sg->hi[i] - a && (!exec || sg->exec[i])) return true;
  return false;
}

/* A NUL-terminated string that starts and ends inside the library. */
static bool string_in_library(const segments *sg, const char *s) {
  uintptr_t a = (uintptr_t)s;
  for (int i = 0; i < sg->n; i++)
    if (a >= sg->lo[i] && a < sg->hi[i]) return memchr(s, 0, sg->hi[i] - a) != NULL;
  return false;
}

struct tilec_library {
  void *handle;
  char *path;
  const tilec_kernel_desc *const *kernels;
  size_t count;
};

static char *copy_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* dlopen searches the loader path for a bare file name; users mean a file here. */
static char *loadable_path(const char *path) {
  if (strchr(path, '/')) return copy_string(path);
  size_t n = strlen(path) + 3;
  char *p = malloc(n);
  if (p) snprintf(p, n, "./%s", path);
  return p;
}

/* gpu: the library launches its kernels on a GPU (exports tilec_gpu_launch, driver/package.c):
 * its descriptors have no CPU program. */
static tilec_status *check_descriptor(const char *path, size_t i, const tilec_kernel_desc *d, const segments *sg,
                                      bool gpu) {
  if (sg->n && !in_library(sg, d, sizeof *d, false))
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel #%zu in '%s' points outside the library", i, path);
  /* Only the first two fields are trustworthy until version and size match. */
  if (d->abi_version != TILEC_ABI_VERSION)
    return tilec_status_create(TILEC_ERROR_ABI, "kernel #%zu in '%s' was built for tilec ABI %u, this runtime is %u", i,
                               path, (unsigned)d->abi_version, (unsigned)TILEC_ABI_VERSION);
  if (d->struct_size != sizeof(tilec_kernel_desc))
    return tilec_status_create(TILEC_ERROR_ABI,
                               "kernel #%zu in '%s' has a %u-byte descriptor, this runtime "
                               "expects %zu bytes for tilec ABI %u",
                               i, path, (unsigned)d->struct_size, sizeof(tilec_kernel_desc),
                               (unsigned)TILEC_ABI_VERSION);
  if (d->name && sg->n && !string_in_library(sg, d->name))
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel #%zu in '%s' has a name outside the library", i,
                               path);
  if (!d->name || !d->name[0])
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel #%zu in '%s' has no name", i, path);
  const char *strings[] = {d->signature, d->target, d->source_file, d->tilec_version};
  for (size_t k = 0; k < sizeof strings / sizeof *strings; k++)
    if (strings[k] && sg->n && !string_in_library(sg, strings[k]))
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "kernel '%s' in '%s' has a metadata string outside the library", d->name, path);
  if (!d->program && !gpu)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s' in '%s' has no program function", d->name,
                               path);
  if (d->program && sg->n && !in_library(sg, (const void *)(uintptr_t)d->program, 1, true))
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel '%s' in '%s' has a program function outside the library's code", d->name, path);
  if (d->num_args > d->num_params || (d->num_params > 0 && !d->params) || d->num_params > MAX_PARAMS)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel '%s' in '%s' has an inconsistent parameter table "
                               "(%u parameters, %u runtime arguments, params %s)",
                               d->name, path, (unsigned)d->num_params, (unsigned)d->num_args,
                               d->params ? "present" : "NULL");
  if (d->num_params && sg->n && !in_library(sg, d->params, sizeof *d->params * d->num_params, false))
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel '%s' in '%s': its parameter table of %u entries lies outside the library",
                               d->name, path, (unsigned)d->num_params);
  uint32_t runtime = 0;
  for (uint32_t j = 0; j < d->num_params; j++) {
    const tilec_param_desc *p = &d->params[j];
    const char *bad = NULL;
    if (!p->name || (sg->n && !string_in_library(sg, p->name))) bad = "no name inside the library";
    else if (p->kind < TILEC_PARAM_POINTER || p->kind > TILEC_PARAM_TENSORDESC) bad = "an unknown kind";
    else if (p->dtype >= TILEC_DTYPE_COUNT || (p->kind != TILEC_PARAM_CONSTEXPR && p->dtype == TILEC_DTYPE_INVALID))
      bad = "an unknown dtype";
    else if (p->kind == TILEC_PARAM_POINTER ? p->pointer_depth < 1 || p->pointer_depth > 8
                                            : p->kind != TILEC_PARAM_TENSORDESC && p->pointer_depth != 0)
      bad = "a pointer depth that does not match its kind";
    else if (p->kind == TILEC_PARAM_CONSTEXPR && (!p->value || (sg->n && !string_in_library(sg, p->value))))
      bad = "a constexpr without a value inside the library";
    if (bad)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s' in '%s': parameter %u has %s", d->name,
                                 path, (unsigned)j, bad);
    runtime += p->kind != TILEC_PARAM_CONSTEXPR;
  }
  if (runtime != d->num_args)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "kernel '%s' in '%s' declares %u runtime arguments but its parameter table has %u",
                               d->name, path, (unsigned)d->num_args, (unsigned)runtime);
  return NULL;
}

/* Reads and validates the exported symbols of an already dlopen'ed library. */
static tilec_status *read_kernel_table(tilec_library *lib) {
  const char *path = lib->path;
  dlerror();
  const uint32_t *version = dlsym(lib->handle, "tilec_library_abi_version");
  if (!version)
    return tilec_status_create(TILEC_ERROR_NOT_FOUND,
                               "'%s' is not a tilec kernel library: it does not export "
                               "'tilec_library_abi_version'",
                               path);
  if (*version != TILEC_ABI_VERSION)
    return tilec_status_create(TILEC_ERROR_ABI, "kernel library '%s' was built for tilec ABI %u, this runtime is %u",
                               path, (unsigned)*version, (unsigned)TILEC_ABI_VERSION);
  dlerror();
  const tilec_kernel_desc *const *table = dlsym(lib->handle, "tilec_kernels");
  if (!table)
    return tilec_status_create(TILEC_ERROR_NOT_FOUND, "kernel library '%s' does not export 'tilec_kernels'", path);
  bool gpu = dlsym(lib->handle, "tilec_gpu_launch") != NULL;
  segments sg = {.n = 0};
  struct link_map *lm = NULL;
  if (dlinfo(lib->handle, RTLD_DI_LINKMAP, &lm) == 0 && lm) {
    sg.base = lm->l_addr;
    sg.name = lm->l_name;
    dl_iterate_phdr(collect_segments, &sg);
  }
  if (sg.n && !in_library(&sg, table, sizeof *table, false))
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel table of '%s' lies outside the library", path);
  size_t n = 0;
  while (table[n]) {
    if (n == MAX_KERNELS)
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "kernel table of '%s' has more than %u entries (missing NULL "
                                 "terminator?)",
                                 path, MAX_KERNELS);
    tilec_status *st = check_descriptor(path, n, table[n], &sg, gpu);
    if (st) return st;
    n++;
    if (sg.n && !in_library(&sg, &table[n], sizeof *table, false))
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                 "kernel table of '%s' runs past the library (missing NULL terminator?)", path);
  }
  /* A duplicate would make find_kernel silently pick one of them. */
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (strcmp(table[i]->name, table[j]->name) == 0)
        return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                                   "kernel library '%s' defines kernel '%s' twice (#%zu and #%zu)", path,
                                   table[i]->name, i, j);
  lib->kernels = table;
  lib->count = n;
  return NULL;
}

tilec_status *tilec_library_load(const char *path, tilec_library **out) {
  if (!out) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_library_load: out is NULL");
  *out = NULL;
  if (!path || !path[0])
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_library_load: the library path is %s",
                               path ? "empty" : "NULL");
  tilec_library *lib = calloc(1, sizeof *lib);
  char *file = loadable_path(path);
  if (lib) lib->path = copy_string(path);
  if (!lib || !file || !lib->path) {
    if (lib) free(lib->path);
    free(lib);
    free(file);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory while loading kernel library '%s'", path);
  }
  dlerror();
  lib->handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
  tilec_status *st = NULL;
  if (!lib->handle) {
    const char *why = dlerror();
    if (!why) why = "unknown loader error";
    struct stat sb;
    /* dlopen folds every failure into one string; stat tells a missing file apart from one
     * the loader rejected (not ELF, wrong machine, missing dependency). */
    if (stat(file, &sb) != 0 && (errno == ENOENT || errno == ENOTDIR))
      st = tilec_status_create(TILEC_ERROR_NOT_FOUND, "kernel library '%s' not found: %s", path, why);
    else st = tilec_status_create(TILEC_ERROR_IO, "cannot load kernel library '%s': %s", path, why);
  } else {
    st = read_kernel_table(lib);
  }
  free(file);
  if (st) {
    tilec_library_unload(lib);
    return st;
  }
  *out = lib;
  return NULL;
}

void tilec_library_unload(tilec_library *lib) {
  if (!lib) return;
  if (lib->handle) dlclose(lib->handle);
  free(lib->path);
  free(lib);
}

const char *tilec_library_path(const tilec_library *lib) { return lib ? lib->path : NULL; }

size_t tilec_library_kernel_count(const tilec_library *lib) { return lib ? lib->count : 0; }

const tilec_kernel_desc *tilec_library_kernel_at(const tilec_library *lib, size_t i) {
  if (!lib || i >= lib->count) return NULL;
  return lib->kernels[i];
}

tilec_status *tilec_library_find_kernel(const tilec_library *lib, const char *name, const tilec_kernel_desc **out) {
  if (!out) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_library_find_kernel: out is NULL");
  *out = NULL;
  if (!lib || !name)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_library_find_kernel: %s is NULL",
                               lib ? "name" : "library");
  for (size_t i = 0; i < lib->count; i++) {
    if (strcmp(lib->kernels[i]->name, name) == 0) {
      *out = lib->kernels[i];
      return NULL;
    }
  }
  size_t len = 1;
  for (size_t i = 0; i < lib->count; i++) len += strlen(lib->kernels[i]->name) + 2;
  char *names = malloc(len);
  if (!names) return tilec_status_create(TILEC_ERROR_NOT_FOUND, "no kernel '%s' in '%s'", name, lib->path);
  size_t k = 0;
  for (size_t i = 0; i < lib->count; i++) {
    size_t n = strlen(lib->kernels[i]->name);
    if (i) {
      memcpy(names + k, ", ", 2);
      k += 2;
    }
    memcpy(names + k, lib->kernels[i]->name, n);
    k += n;
  }
  names[k] = 0;
  tilec_status *st = tilec_status_create(TILEC_ERROR_NOT_FOUND, "no kernel '%s' in '%s'; it has: %s", name, lib->path,
                                         lib->count ? names : "(no kernels)");
  free(names);
  return st;
}
