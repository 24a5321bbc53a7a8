/* driver/jit.c — JIT compilation into loaded kernels, with a memory cache per compiler
 * and a disk cache shared by processes (temp file + rename; XXH3-128 key and checksum trailer per entry).
 * In: a compiler and a kernel spec. Out: a tilec_jit_kernel handle, maybe a warning status. */
#include "driver/compiler.h"
#include "frontend/frontend.h"
#include "runtime/files.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tilec/runtime.h"

/* ---- hashing: XXH3-128 (libxxhash's header, inlined) ------------------------------------ */

#define XXH_INLINE_ALL
#include <xxhash.h>

/* A cache key or an entry's checksum: 128 bits, so a collision is not a concern. */
typedef XXH128_hash_t jit_key;
typedef XXH3_state_t key_state;

static void key_bytes(key_state *h, const void *data, size_t n) { XXH3_128bits_update(h, data, n); }

/* Length-prefixed, so ("ab", "c") and ("a", "bc") hash differently; NULL differs from "". */
static void key_field(key_state *h, const char *s, size_t n) {
  uint64_t len = s ? (uint64_t)n : UINT64_MAX;
  key_bytes(h, &len, sizeof len);
  if (s) key_bytes(h, s, n);
}

static void key_str(key_state *h, const char *s) { key_field(h, s, s ? strlen(s) : 0); }

static void key_int(key_state *h, int64_t v) { key_bytes(h, &v, sizeof v); }

static bool key_equal(jit_key a, jit_key b) { return XXH128_isEqual(a, b) != 0; }

/* 32 hex digits, high half first: the entry's file name and the key in messages. */
typedef struct key_hex {
  char s[33];
} key_hex;

static key_hex key_format(jit_key k) {
  key_hex x;
  snprintf(x.s, sizeof x.s, "%016llx%016llx", (unsigned long long)k.high64, (unsigned long long)k.low64);
  return x;
}

/* The identity of this build of the compiler: the GNU build-id note of the object that
 * contains this code (libtilec), so a rebuilt compiler with the same version string never
 * picks up libraries its predecessor cached. Empty when the note cannot be found. */
typedef struct build_id {
  const void *addr; /* an address inside this object */
  unsigned char id[64];
  size_t len;
} build_id;

static int find_build_id(struct dl_phdr_info *info, size_t size, void *user) {
  (void)size;
  build_id *b = user;
  uintptr_t a = (uintptr_t)b->addr;
  bool mine = false;
  for (int i = 0; i < info->dlpi_phnum && !mine; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    mine = ph->p_type == PT_LOAD && a >= lo && a < lo + ph->p_memsz;
  }
  if (!mine) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
      const unsigned char *name = p + sizeof *nh, *desc = name + ((nh->n_namesz + 3) & ~3u);
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) && desc + nh->n_descsz <= end) {
        b->len = nh->n_descsz < sizeof b->id ? nh->n_descsz : sizeof b->id;
        memcpy(b->id, desc, b->len);
        return 1;
      }
      p = desc + ((nh->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}

static build_id this_build;

static void build_id_init(void) {
  this_build.addr = (const void *)(uintptr_t)&find_build_id;
  dl_iterate_phdr(find_build_id, &this_build);
}

static void key_build_id(key_state *h) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, build_id_init);
  key_field(h, (const char *)this_build.id, this_build.len);
}

/* ---- the module context in the key ------------------------------------------------------- */

static void key_globals(key_state *h, const tilec_global *g, size_t n) {
  key_int(h, g ? (int64_t)n : -1);
  for (size_t i = 0; g && i < n; i++) {
    key_str(h, g[i].name);
    key_int(h, g[i].kind);
    key_str(h, g[i].value);
    key_int(h, (int64_t)g[i].module);
  }
}

/* A whole file's contents (a missing file hashes as absent). */
static void key_file(key_state *h, const char *path) {
  char *text = NULL;
  size_t len = 0;
  tilec_status *st = tilec_file_read_source(path, &text, &len);
  if (st) {
    tilec_status_destroy(st);
    key_field(h, NULL, 0);
    return;
  }
  key_field(h, text, len);
  free(text);
}

/* `tilec compile FILE` reads the Python files a kernel file imports (`from helpers import
 * f`, `from mypkg.utils import g`): their contents are part of the key. */
static void hash_import(void *user, const char *path, const char *text, size_t n) {
  key_state *h = user;
  key_str(h, path);
  key_field(h, text, n);
}

static void key_module_context(key_state *h, const tilec_kernel_spec *spec) {
  key_int(h, spec->source_kind);
  key_int(h, spec->first_line);
  key_globals(h, spec->globals, spec->num_globals);
  key_int(h, spec->modules ? (int64_t)spec->num_modules : -1);
  if (spec->source_kind == TILEC_SOURCE_FILE && spec->source)
    tc_source_imports(spec->filename, spec->source, spec->source_len, hash_import, h);
  for (size_t i = 0; spec->modules && i < spec->num_modules; i++) {
    const tilec_source_module *m = &spec->modules[i];
    key_str(h, m->filename);
    if (m->source) key_field(h, m->source, m->source_len ? m->source_len : strlen(m->source));
    else key_file(h, m->filename);
    key_int(h, m->source_kind);
    key_int(h, m->first_line);
    key_globals(h, m->globals, m->num_globals);
    if (m->source_kind == TILEC_SOURCE_FILE && m->filename) {
      /* a FILE module's own imports, as for the kernel's file */
      char *text = NULL;
      size_t len = 0;
      tilec_status *st = m->source ? NULL : tilec_file_read_source(m->filename, &text, &len);
      if (m->source)
        tc_source_imports(m->filename, m->source, m->source_len ? m->source_len : strlen(m->source), hash_import, h);
      else if (!st) tc_source_imports(m->filename, text, len, hash_import, h);
      tilec_status_destroy(st);
      free(text);
    }
  }
  /* read by the front end (Triton's rule for non-constexpr globals) */
  key_str(h, getenv("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS"));
  /* tl.dot's default input_precision (frontend/builtins_tile.c) */
  key_str(h, getenv("TRITON_F32_DEFAULT"));
#ifdef TILEC_TEST_HOOKS
  /* changes the code the lowering emits in test builds (conversion/memory.c) */
  key_str(h, getenv("TILEC_TEST_INJECT_MISCOMPILE"));
#endif
}

/* Everything that changes the compiled library: the spec, the options, the target this
 * compiler resolved (CPU and features, not just "host"), the compiler's version and build,
 * and the ABI version. */
static jit_key cache_key(const tilec_compiler *c, const tilec_kernel_spec *spec) {
  key_state state, *h = &state;
  XXH3_128bits_reset(h);
  key_str(h, "tilec-jit-key-3");
  key_str(h, tilec_version());
  key_build_id(h);
  key_int(h, TILEC_ABI_VERSION);
  key_str(h, c->target.triple);
  key_str(h, c->target.cpu);
  key_str(h, c->target.features);
  key_int(h, c->target.vector_bits);
  key_int(h, c->target.num_warps);  /* nvptx, nvptx-emu: threads per program */
  key_int(h, c->target.num_stages); /* nvptx, nvptx-emu: the K loops' pipeline depth (0 on a CPU) */
  key_int(h, c->target.gpu_emulation);
  key_str(h, c->target.emu_arch); /* nvptx-emu: sm_90a emulates wgmma */
  key_str(h, c->opts.target);
  key_int(h, c->opts.opt_level);
  key_int(h, c->opts.fast_math);
  key_int(h, c->opts.no_fp_fusion);
  key_int(h, c->opts.debug_info);
  key_int(h, c->checks); /* resolved: the same code whichever way it was asked for */
  key_int(h, c->opts.reference);
  key_int(h, c->opts.strip_asserts);
  key_field(h, spec->source, spec->source_len);
  key_str(h, spec->filename);
  key_str(h, spec->kernel);
  key_str(h, spec->signature);
  key_int(h, (int64_t)spec->num_defines);
  for (size_t i = 0; i < spec->num_defines; i++) {
    key_str(h, spec->defines[i].name);
    key_str(h, spec->defines[i].value);
  }
  key_module_context(h, spec);
  return XXH3_128bits_digest(h);
}

/* ---- loaded kernels ---------------------------------------------------------------------- */

/* One loaded library, shared by every handle to it and by the memory cache. */
/* A --target nvptx library's launcher (driver/package.c): the whole grid to the GPU. */
typedef int (*gpu_launch_fn)(void *cuda_stream, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, void *const *args);

typedef struct jit_lib {
  _Atomic unsigned refs;
  tilec_library *lib;
  const tilec_kernel_desc *desc;
  gpu_launch_fn gpu; /* set for GPU kernels (their descriptor has no CPU program) */
  char *cache_path;
} jit_lib;

struct tilec_jit_kernel {
  jit_lib *shared;
  tilec_jit_origin origin;
};

static void jit_lib_release(jit_lib *l) {
  if (!l || atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) != 1) return;
  tilec_library_unload(l->lib);
  free(l->cache_path);
  free(l);
}

typedef struct cache_entry {
  jit_key key;
  jit_lib *lib;
} cache_entry;

struct tc_jit_cache {
  char *dir;         /* resolved disk cache directory; NULL: none */
  bool swept;        /* stale temporary files removed (once per compiler) */
  char *dir_problem; /* why there is none when one was wanted, for the warning */
  cache_entry *entries;
  size_t count, cap;
};

void tc_jit_cache_destroy(tc_jit_cache *cache) {
  if (!cache) return;
  for (size_t i = 0; i < cache->count; i++) jit_lib_release(cache->entries[i].lib);
  free(cache->entries);
  free(cache->dir);
  free(cache->dir_problem);
  free(cache);
}

static char *format_path(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s/%s", a, b);
  return p;
}

/* Options, then TILEC_CACHE_DIR, then $XDG_CACHE_HOME/tilec, then ~/.cache/tilec. */
tilec_status *tc_jit_cache_create(const tilec_compiler *c, tc_jit_cache **out) {
  tc_jit_cache *cache = calloc(1, sizeof *cache);
  if (!cache) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  const char *opt = c->opts.cache_dir, *env = getenv("TILEC_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (opt) {
    if (opt[0]) cache->dir = strdup(opt); /* "" asks for no disk cache: no warning either */
  } else if (env && env[0]) {
    cache->dir = strdup(env);
  } else if (xdg && xdg[0]) {
    cache->dir = format_path(xdg, "tilec");
  } else if (home && home[0]) {
    cache->dir = format_path(home, ".cache/tilec");
  } else {
    cache->dir_problem = strdup("no cache directory: TILEC_CACHE_DIR, XDG_CACHE_HOME and HOME are unset");
  }
  bool wanted = (opt && opt[0]) || (!opt && ((env && env[0]) || (xdg && xdg[0]) || (home && home[0])));
  if ((wanted && !cache->dir) || (!wanted && !(opt && !opt[0]) && !cache->dir_problem)) {
    free(cache->dir);
    free(cache->dir_problem);
    free(cache);
    return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  }
  *out = cache;
  return NULL;
}

const char *tilec_compiler_cache_dir(const tilec_compiler *c) { return c && c->jit ? c->jit->dir : NULL; }

/* mkdir -p with mode 0700 for the parts it creates. */
static int make_dirs(const char *path) {
  char *p = strdup(path);
  if (!p) return ENOMEM;
  int err = 0;
  for (char *s = p + 1;; s++) {
    if (*s != '/' && *s) continue;
    char saved = *s;
    *s = 0;
    if (mkdir(p, 0700) != 0 && errno != EEXIST) err = errno;
    *s = saved;
    if (err || !saved) break;
  }
  struct stat sb;
  if (!err && (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))) err = ENOTDIR;
  free(p);
  return err;
}

/* ---- disk entries: the library followed by a trailer ------------------------------------ */

/* Appended after the ELF image (the loader ignores bytes past what the program headers map):
 * a torn or truncated write, or a file from another key, fails these checks. */
#define TRAILER_MAGIC "TILECJT2"
typedef struct trailer {
  char magic[8];
  uint64_t body_size;
  jit_key key;
  jit_key body_hash;
} trailer;

/* Cache entries: never follow a symlink, never block on a FIFO or read a device forever. */
#define MAX_ENTRY_BYTES ((size_t)1 << 30)

static tilec_status *read_whole(const char *path, unsigned char **out, size_t *len) {
  return tilec_file_read_status(path, MAX_ENTRY_BYTES, true, (char **)out, len);
}

/* NULL when path holds a complete entry for key; else why not (for the warning). */
static char *check_entry(const char *path, jit_key key) {
  unsigned char *buf = NULL;
  size_t len = 0;
  tilec_status *st = read_whole(path, &buf, &len);
  char why[160] = "";
  if (st) {
    snprintf(why, sizeof why, "%s", tilec_status_message(st));
    tilec_status_destroy(st);
  } else if (len < sizeof(trailer)) {
    snprintf(why, sizeof why, "%zu bytes, shorter than its trailer", len);
  } else {
    trailer t;
    memcpy(&t, buf + len - sizeof t, sizeof t);
    if (memcmp(t.magic, TRAILER_MAGIC, 8) != 0) snprintf(why, sizeof why, "no tilec trailer (truncated?)");
    else if (!key_equal(t.key, key)) snprintf(why, sizeof why, "written for key %s", key_format(t.key).s);
    else if (t.body_size != len - sizeof t)
      snprintf(why, sizeof why, "size %zu, trailer says %llu", len - sizeof t, (unsigned long long)t.body_size);
    else if (!key_equal(XXH3_128bits(buf, len - sizeof t), t.body_hash)) snprintf(why, sizeof why, "checksum mismatch");
  }
  free(buf);
  return why[0] ? strdup(why) : NULL;
}

static tilec_status *append_trailer(const char *path, jit_key key) {
  unsigned char *buf = NULL;
  size_t len = 0;
  tilec_status *st = read_whole(path, &buf, &len);
  if (st) return st;
  trailer t;
  memcpy(t.magic, TRAILER_MAGIC, 8);
  t.key = key;
  t.body_size = len;
  t.body_hash = XXH3_128bits(buf, len);
  free(buf);
  FILE *f = fopen(path, "ab");
  if (!f) return tilec_status_create(TILEC_ERROR_IO, "cannot write '%s': %s", path, strerror(errno));
  bool ok = fwrite(&t, sizeof t, 1, f) == 1;
  /* The entry must be whole on disk before rename publishes it. */
  ok = fflush(f) == 0 && ok && fsync(fileno(f)) == 0;
  if (fclose(f) != 0) ok = false;
  return ok ? NULL : tilec_status_create(TILEC_ERROR_IO, "cannot write '%s': %s", path, strerror(errno));
}

/* Loads a library and finds the kernel; *out gets one reference. */
static tilec_status *load_kernel(const char *path, const char *kernel, const char *cache_path, jit_lib **out) {
  jit_lib *l = calloc(1, sizeof *l);
  if (!l) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  tilec_status *st = tilec_library_load(path, &l->lib);
  if (!st) st = tilec_library_find_kernel(l->lib, kernel, &l->desc);
  if (!st && !l->desc->program) { /* a GPU kernel: its library's launcher (still loaded by l->lib) */
    void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (h) {
      l->gpu = (gpu_launch_fn)dlsym(h, "tilec_gpu_launch");
      dlclose(h);
    }
    if (!l->gpu)
      st = tilec_status_create(TILEC_ERROR_ABI, "'%s': kernel '%s' has neither a CPU program nor a GPU launcher", path,
                               kernel);
  }
  if (!st && cache_path && !(l->cache_path = strdup(cache_path)))
    st = tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  if (st) {
    tilec_library_unload(l->lib);
    free(l->cache_path);
    free(l);
    return st;
  }
  atomic_init(&l->refs, 1);
  *out = l;
  return NULL;
}

/* Compiles into a fresh temporary directory, loads, then removes the file (the mapping
 * stays valid). */
static tilec_status *compile_in_temp(tilec_compiler *c, const tilec_kernel_spec *spec, jit_lib **out) {
  char dir[4096];
  int err = tilec_temp_dir("tilec-jit", dir, sizeof dir);
  if (err)
    return tilec_status_create(TILEC_ERROR_IO, "cannot create a temporary directory '%s': %s", dir, strerror(err));
  char so[4200];
  snprintf(so, sizeof so, "%s/%s.so", dir, spec->kernel);
  tilec_status *st = tilec_compiler_build_library(c, spec, so, NULL);
  if (!st) st = load_kernel(so, spec->kernel, NULL, out);
  tilec_temp_dir_remove(dir);
  return st;
}

/* A writer that died between mkstemp and rename leaves `.tmp-*` behind; they are never
 * read, and ones older than an hour (no compile takes that long) are removed here. */
#define STALE_TEMP_SECONDS 3600

static void sweep_stale_temps(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  time_t now = time(NULL);
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (strncmp(e->d_name, ".tmp-", 5) != 0) continue;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        now - st.st_mtime > STALE_TEMP_SECONDS)
      unlinkat(dirfd(d), e->d_name, 0);
  }
  closedir(d);
}

/* Builds the entry under a temporary name in the cache directory and renames it into
 * place, so a concurrent reader sees either no entry or a whole one. A writer that loses
 * the race just replaces an equal entry. *unusable (with why) reports a cache directory
 * that cannot take the entry: not writable, full (ENOSPC while linking or writing the
 * trailer), or the entry path taken by a directory; the caller then compiles in a
 * temporary directory as documented. */
static tilec_status *compile_into_cache(tilec_compiler *c, const tilec_kernel_spec *spec, const char *entry,
                                        jit_key key, bool *unusable, char *why, size_t why_len) {
  *unusable = false;
  int err = make_dirs(c->jit->dir);
  if (!err && !c->jit->swept) {
    sweep_stale_temps(c->jit->dir);
    c->jit->swept = true;
  }
  char tmp[4200];
  int fd = -1;
  if (!err) {
    snprintf(tmp, sizeof tmp, "%s/.tmp-%s-XXXXXX", c->jit->dir, key_format(key).s);
    fd = mkstemp(tmp);
    if (fd < 0) err = errno;
  }
  if (err) {
    *unusable = true;
    snprintf(why, why_len, "%s", strerror(err));
    return NULL;
  }
  close(fd);
  tilec_status *st = tilec_compiler_build_library(c, spec, tmp, NULL);
  if (!st) st = append_trailer(tmp, key);
  if (!st && rename(tmp, entry) != 0)
    st = tilec_status_create(TILEC_ERROR_IO, "cannot rename '%s' to '%s': %s", tmp, entry, strerror(errno));
  unlink(tmp); /* after a successful rename there is nothing left to remove */
  if (st && tilec_status_code_of(st) == TILEC_ERROR_IO) {
    /* Writing into the cache failed, not the kernel: the caller retries elsewhere. */
    *unusable = true;
    snprintf(why, why_len, "%s", tilec_status_message(st));
    tilec_status_destroy(st);
    return NULL;
  }
  return st;
}

/* The front end's warnings of an entry (Triton's compile-time UserWarnings), kept beside it
 * in "<entry>.warnings" so that a kernel loaded from the disk cache shows them as its compile
 * did. Best effort: a file that cannot be written or read only loses the warnings. */
static void save_warnings(const tilec_compiler *c, const char *entry) {
  size_t n = strlen(c->warnings);
  if (!n) return;
  char tmp[4200], path[4200];
  snprintf(tmp, sizeof tmp, "%s/.tmp-warnings-XXXXXX", c->jit->dir);
  snprintf(path, sizeof path, "%s.warnings", entry);
  int fd = mkstemp(tmp);
  if (fd < 0) return;
  bool ok = write(fd, c->warnings, n) == (ssize_t)n;
  close(fd);
  if (!ok || rename(tmp, path) != 0) unlink(tmp);
}

static void load_warnings(tilec_compiler *c, const char *entry) {
  char path[4200];
  snprintf(path, sizeof path, "%s.warnings", entry);
  char *text = NULL;
  size_t len = 0;
  tilec_status *st = tilec_file_read_status(path, sizeof c->warnings - 1, true, &text, &len);
  if (!st) snprintf(c->warnings, sizeof c->warnings, "%.*s", (int)len, text);
  tilec_status_destroy(st);
  free(text);
}

/* ---- the API ----------------------------------------------------------------------------- */

static tilec_status *remember(tc_jit_cache *cache, jit_key key, jit_lib *l) {
  if (cache->count == cache->cap) {
    size_t cap = cache->cap ? cache->cap * 2 : 8;
    cache_entry *e = realloc(cache->entries, cap * sizeof *e);
    if (!e) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
    cache->entries = e;
    cache->cap = cap;
  }
  atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
  cache->entries[cache->count++] = (cache_entry){key, l};
  return NULL;
}

static tilec_status *make_handle(jit_lib *l, tilec_jit_origin origin, tilec_jit_kernel **out) {
  tilec_jit_kernel *k = malloc(sizeof *k);
  if (!k) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
  k->shared = l;
  k->origin = origin;
  *out = k;
  return NULL;
}

static void set_warning(tilec_status **warning, tilec_status *w) {
  if (warning && !*warning) *warning = w;
  else tilec_status_destroy(w);
}

/* The steps after the key is known: memory, disk, compile. */
static tilec_status *jit_lookup_or_build(tilec_compiler *c, const tilec_kernel_spec *spec, jit_key key,
                                         tilec_jit_kernel **out, tilec_status **warning) {
  tc_jit_cache *cache = c->jit;
  for (size_t i = 0; i < cache->count; i++)
    if (key_equal(cache->entries[i].key, key)) {
      tilec_status *st = make_handle(cache->entries[i].lib, TILEC_JIT_MEMORY_CACHE, out);
      if (!st) atomic_fetch_add_explicit(&cache->entries[i].lib->refs, 1, memory_order_relaxed);
      return st;
    }

  jit_lib *l = NULL;
  tilec_jit_origin origin = TILEC_JIT_COMPILED;
  tilec_status *st = NULL;
  char *entry = NULL;
  if (cache->dir) {
    char name[40];
    snprintf(name, sizeof name, "%s.so", key_format(key).s);
    entry = format_path(cache->dir, name);
    if (!entry) return tilec_status_create(TILEC_ERROR_INTERNAL, "out of memory");
    char *bad = check_entry(entry, key);
    if (!bad) {
      tilec_status *ls = load_kernel(entry, spec->kernel, entry, &l);
      if (!ls) {
        origin = TILEC_JIT_DISK_CACHE;
        load_warnings(c, entry);
      } else {
        bad = strdup(tilec_status_message(ls));
        tilec_status_destroy(ls);
      }
    } else if (access(entry, F_OK) != 0) {
      free(bad); /* simply not there yet: a miss, not a problem */
      bad = NULL;
    }
    if (bad) {
      set_warning(warning,
                  tilec_status_create(TILEC_ERROR_IO, "JIT cache entry '%s' was corrupt (%s) and has been rebuilt",
                                      entry, bad));
      free(bad);
    }
    if (!l) {
      bool unusable = false;
      char why[1024] = "";
      st = compile_into_cache(c, spec, entry, key, &unusable, why, sizeof why);
      if (!st && !unusable) save_warnings(c, entry);
      if (!st && !unusable) st = load_kernel(entry, spec->kernel, entry, &l);
      if (!st && unusable) {
        if (warning && *warning) { /* "corrupt, rebuilt" would be wrong: it was not cached */
          tilec_status_destroy(*warning);
          *warning = NULL;
        }
        set_warning(warning, tilec_status_create(TILEC_ERROR_IO,
                                                 "JIT cache directory '%s' is not usable (%s); kernel '%s' was "
                                                 "compiled in a temporary directory",
                                                 cache->dir, why, spec->kernel));
        st = compile_in_temp(c, spec, &l);
      }
    }
  } else {
    if (cache->dir_problem)
      set_warning(warning, tilec_status_create(TILEC_ERROR_IO, "%s; kernel '%s' was compiled in a temporary directory",
                                               cache->dir_problem, spec->kernel));
    st = compile_in_temp(c, spec, &l);
  }
  free(entry);
  if (!st) st = remember(cache, key, l);
  if (!st) st = make_handle(l, origin, out);
  if (st) jit_lib_release(l); /* the cache's reference, if remember took one, stays */
  return st;
}

tilec_status *tilec_jit_compile(tilec_compiler *c, const tilec_kernel_spec *spec, tilec_jit_kernel **out,
                                tilec_status **warning) {
  if (warning) *warning = NULL;
  if (!out) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_jit_compile: out is NULL");
  *out = NULL;
  if (!c || !spec || !spec->kernel || (!spec->source && !spec->filename))
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT,
                               "tilec_jit_compile: needs a compiler and a spec with a kernel name and source or file");
  /* The key needs the text, so a file is read once here and compiled from memory. */
  c->notes[0] = 0; /* a kernel from a cache has no front-end output (but its saved warnings) */
  c->warnings[0] = 0;
  tilec_kernel_spec s = *spec;
  char *text = NULL;
  if (!s.source) {
    tilec_status *st = tilec_file_read_source(spec->filename, &text, &s.source_len);
    if (st) return st;
    s.source = text;
  }
  tilec_status *st = jit_lookup_or_build(c, &s, cache_key(c, &s), out, warning);
  free(text);
  if (st && warning && *warning) {
    tilec_status_destroy(*warning);
    *warning = NULL;
  }
  return st;
}

const tilec_kernel_desc *tilec_jit_kernel_desc(const tilec_jit_kernel *k) { return k ? k->shared->desc : NULL; }

tilec_jit_origin tilec_jit_kernel_origin(const tilec_jit_kernel *k) { return k ? k->origin : TILEC_JIT_COMPILED; }

const char *tilec_jit_kernel_cache_path(const tilec_jit_kernel *k) { return k ? k->shared->cache_path : NULL; }

/* A GPU kernel: the arguments checked as the CPU launcher checks them (count, NULL
 * pointers), then the grid to the driver, synchronously (launch options are the CPU's:
 * threads, debug checks; none applies). */
static tilec_status *gpu_launch(const jit_lib *l, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z, void *const *args,
                                size_t num_args) {
  const tilec_kernel_desc *d = l->desc;
  if (num_args != d->num_args)
    return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s' takes %u argument%s, got %zu", d->name,
                               (unsigned)d->num_args, d->num_args == 1 ? "" : "s", num_args);
  if (num_args && !args) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s': args is NULL", d->name);
  for (uint32_t j = 0, a = 0; j < d->num_params && a < d->num_args; j++) {
    const tilec_param_desc *p = &d->params[j];
    if (p->kind == TILEC_PARAM_CONSTEXPR) continue;
    if (!args[a] || (p->kind == TILEC_PARAM_POINTER && *(void *const *)args[a] == NULL))
      return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "kernel '%s': argument %u ('%s') is NULL", d->name,
                                 (unsigned)a, p->name ? p->name : "?");
    a++;
  }
  int rc = l->gpu(NULL, grid_x, grid_y, grid_z, args);
  return rc ? tilec_status_create((tilec_status_code)rc, "%s", tilec_last_error()) : NULL;
}

tilec_status *tilec_jit_kernel_launch(const tilec_jit_kernel *k, uint32_t grid_x, uint32_t grid_y, uint32_t grid_z,
                                      void *const *args, size_t num_args, const tilec_launch_options *opts) {
  if (!k) return tilec_status_create(TILEC_ERROR_INVALID_ARGUMENT, "tilec_jit_kernel_launch: kernel is NULL");
  if (k->shared->gpu) return gpu_launch(k->shared, grid_x, grid_y, grid_z, args, num_args);
  return tilec_kernel_launch_checked(k->shared->desc, grid_x, grid_y, grid_z, args, num_args, opts);
}

void tilec_jit_kernel_release(tilec_jit_kernel *k) {
  if (!k) return;
  jit_lib_release(k->shared);
  free(k);
}
