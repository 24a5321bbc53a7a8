/* tests/fuzz/fuzz_npy.c — libFuzzer target over the .npy reader (tools/npy.c): any byte
 * string must give an array or an error status, never a crash, an over-read or UB; an
 * array that was read is written back and read again and must come out equal.
 * In: file bytes (seeds in tests/fuzz/corpus/npy: numpy's own files of each dtype).
 * Out: nothing; scripts/fuzz.sh runs it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tools/npy.h"

static char roundtrip_path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size) return 0;
  /* A memfd, not fmemopen: the reader checks the data size against fstat like for a real
   * file, and a claimed size beyond what is there must be refused before allocating. */
  int fd = memfd_create("fuzz.npy", 0);
  if (fd < 0) abort();
  if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) abort();
  FILE *f = fdopen(fd, "rb");
  if (!f) abort();
  tilec_npy a;
  memset(&a, 0, sizeof a);
  tilec_status *st = tilec_npy_read_stream(f, "fuzz.npy", &a);
  fclose(f);
  if (st) {
    tilec_status_destroy(st);
    tilec_npy_free(&a);
    return 0;
  }
  /* Small arrays only: the write/read round trip goes through a file. */
  if (a.nbytes <= (1u << 16)) {
    if (!roundtrip_path[0])
      snprintf(roundtrip_path, sizeof roundtrip_path, "/tmp/tilec-fuzz-npy-%ld.npy", (long)getpid());
    tilec_status *w = tilec_npy_write(roundtrip_path, &a);
    if (w) abort(); /* whatever was read is writable */
    tilec_npy b;
    tilec_status *r = tilec_npy_read(roundtrip_path, &b);
    if (r || b.dtype != a.dtype || b.ndim != a.ndim || b.nbytes != a.nbytes ||
        memcmp(b.shape, a.shape, sizeof a.shape[0] * (size_t)a.ndim) || (a.nbytes && memcmp(a.data, b.data, a.nbytes)))
      abort();
    tilec_npy_free(&b);
    unlink(roundtrip_path);
  }
  tilec_npy_free(&a);
  return 0;
}
