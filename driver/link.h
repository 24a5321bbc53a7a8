/* driver/link.h — compiler and linker runs for kernel libraries (driver/link.c): jobs in the
 * background whose output becomes the error message, and the link of a stub with kernel
 * objects into a library renamed into place. In: files, a target. Out: a status. */
#ifndef TILEC_DRIVER_LINK_H
#define TILEC_DRIVER_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "target/target.h"
#include "tilec/status.h"

/* A C compiler or linker run in the background; its output goes to a temporary file that
 * becomes the error message when it fails. */
typedef struct tc_cc_job {
  pid_t pid;
  int efd;
  char errpath[4200];
  const char *what;
} tc_cc_job;

/* Starts argv in the background; dir (the build's temporary directory) holds its output. */
tilec_status *tc_cc_spawn(char *const argv[], const char *dir, tc_cc_job *j);
/* Waits for the job; a failure's message says what it was doing and what the tool printed. */
tilec_status *tc_cc_wait(tc_cc_job *j, const char *doing);
/* spawn + wait. */
tilec_status *tc_run_cc(char *const argv[], const char *dir);
/* The C compiler with the flags the stub compile (mode "-c") and the driver link
 * ("-shared") share; returns how many argv entries it wrote. */
int tc_cc_command(char **argv, const char *mode, bool debug_info, const tc_target *target, char *target_flag);
/* Links stub (a .c or .o) with objs into so_path through a temporary file renamed into
 * place: a failed link leaves what was at so_path as it was. */
tilec_status *tc_link_objects(const char *stub, char **objs, size_t n, const tc_target *target, const char *so_path,
                              bool debug_info, const char *dir);

#endif
