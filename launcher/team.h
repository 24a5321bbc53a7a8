/* launcher/team.h — the threads a launch runs its programs on.
 * In: a team size and a body. Out: the body run once on each thread of the team, joined. */
#ifndef TILEC_LAUNCHER_TEAM_H
#define TILEC_LAUNCHER_TEAM_H
#include <stdint.h>

/* Runs body(ctx, tid, nthreads) on every thread of an OpenMP team of up to `threads` threads
 * (the caller is thread 0; nthreads is the size the team got) and returns when all are done.
 * The team is libomp's, or — in a process that has already loaded GNU libgomp, as PyTorch
 * does — libgomp's, so tilec's programs and torch's ops run on the same threads instead of
 * two pools spinning against each other (launcher/team.c). */
typedef void (*tc_team_body)(void *ctx, uint32_t tid, uint32_t nthreads);
void tc_team_run(uint32_t threads, tc_team_body body, void *ctx);

/* The team size when the launch does not say: OpenMP's default of the runtime tc_team_run
 * would use (under PyTorch, what torch.set_num_threads set). */
int tc_team_default_threads(void);

#endif
