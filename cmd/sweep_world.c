/* SPDX-License-Identifier: MIT */
/* sweep_world.c: the ranks of a sweep: one process, or an MPI world
 * (built with `make MPI=1`): rank r runs points r, r + R, ...; rank 0
 * gathers the results. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef VS_WITH_MPI
#include <mpi.h>
#endif

#include "sweep.h"

/* ---- the ranks: one process, or an MPI world ------------------------------ */


/* True when a launcher (mpirun, srun) started this process as one of many. */
static int launched_as_rank(int *size) {
  const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
  for (size_t i = 0; i < 2; i++) {
    const char *s = getenv(vars[i]);
    if (s && *s) {
      *size = atoi(s);
      return 1;
    }
  }
  *size = 0; /* PMIx says that we are a rank, not how many there are */
  return getenv("PMIX_RANK") != NULL;
}

void world_init(world *w) {
  w->rank = 0;
  w->size = 1;
  w->mpi = 0;
  int n = 1;
  if (!launched_as_rank(&n)) return;
#ifdef VS_WITH_MPI
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w->size);
  w->mpi = 1;
#else
  /* Without MPI every rank would run every point into the same files. */
  if (n > 1) {
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r) r = getenv("PMI_RANK");
    w->rank = r ? atoi(r) : 0;
    w->size = n;
  }
#endif
}

int world_agree(const world *w, int code) {
#ifdef VS_WITH_MPI
  if (w->mpi) MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  return code;
}

void world_end(world *w) {
#ifdef VS_WITH_MPI
  if (w->mpi) MPI_Finalize();
#endif
  w->mpi = 0;
}

int world_gather(const world *w, point_result *results, size_t n_points, int failed,
                 int interrupted) {
#ifdef VS_WITH_MPI
  size_t sz = sizeof *results;
  if (w->mpi) {
    /* rank 0 gathers every other rank's points, in point order */
    for (size_t k = 0; k < n_points; k++) {
      int from = (int)(k % (size_t)w->size);
      if (from == 0) continue;
      if (w->rank == 0)
        MPI_Recv(&results[k], (int)sz, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else if (w->rank == from)
        MPI_Send(&results[k], (int)sz, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    int any = failed, all = 0;
    MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    interrupted = all;
  }
#else
  (void)w;
  (void)results;
  (void)n_points;
  (void)failed;
#endif
  return interrupted;
}

void world_gather_collected(const world *w, double *collected, size_t n_points, size_t n_collect) {
#ifdef VS_WITH_MPI
  if (w->mpi && n_collect > 0) {
    for (size_t k = 0; k < n_points; k++) {
      int from = (int)(k % (size_t)w->size);
      if (from == 0) continue;
      double *row = collected + k * n_collect;
      if (w->rank == 0)
        MPI_Recv(row, (int)n_collect, MPI_DOUBLE, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      else if (w->rank == from)
        MPI_Send(row, (int)n_collect, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
  }
#else
  (void)w;
  (void)collected;
  (void)n_points;
  (void)n_collect;
#endif
}
